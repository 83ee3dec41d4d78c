""""Why?" after a recommendation or a serving answer (#36 item 4) explains the figure just given — for a
recommendation, the memory per GPU the chosen card had to hold, its largest part with the formula, the card's room and
the speed at the load asked; for a serving answer, the decode step behind the per-user speed — not the generic
"where the figure comes from" line, and not the memory of another calculation run beside it."""

from __future__ import annotations

import pytest

from tests.test_thread_why_and_delta import thread

GENERIC = ("Here is where the figure comes from", "这个数字的来历")


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (["what card should we get to serve a 32B model to 40 people at once?", "how come?"], ("comes first because", "GB on each GPU", "tokens/s per user")),
        (["给 40 个并发用户部署 32B 模型，买哪种卡？", "为什么选它"], ("首选", "每张卡要", "token/s")),
        (["which GPU to LoRA fine-tune Qwen2.5 14B?", "why?"], ("comes first because", "GB on each GPU", "spare")),
        (["Qwen2.5 14B 做 LoRA 微调，推荐什么卡？", "为什么？"], ("首选", "每张卡要", "余量")),
    ],
)
def test_why_after_a_recommendation_explains_the_chosen_tier(offline_advisor, messages, words):
    first, why = thread(offline_advisor, *messages)
    opening = why.summary.strip().split("\n")[0]
    assert all(word in opening for word in words), opening
    assert "`" in opening  # the largest part's formula is shown
    assert not any(generic in why.answer for generic in GENERIC)
    # the card named is the one the recommendation put first
    recommended = next(call for call in first.tool_calls if call.name == "recommend_gpus").result["tiers"][0]["option"]
    assert recommended["config_label"]["zh" if "首选" in words else "en"] in opening


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (["how fast is Llama 3.1 8B on one L40S with 16 users at once?", "why so?"], ("tokens/s", "decode step")),
        (["一张 L40S 跑 Llama 3.1 8B，16 个人同时用，速度多少？", "为什么？"], ("token/s", "解码步")),
    ],
)
def test_why_after_a_serving_answer_explains_the_decode_step(offline_advisor, messages, words):
    _, why = thread(offline_advisor, *messages)
    opening = why.summary.strip().split("\n")[0]
    assert all(word in opening for word in words), opening
    assert not any(generic in why.answer for generic in GENERIC)
