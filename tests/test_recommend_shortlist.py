"""Recommendations a buyer can act on (issue #35 item 2), in both languages, our own wording:
the user's own shortlist is what gets evaluated, a purchase question owns no cards, and a model named in one place
and sized in another is the catalog model."""

from __future__ import annotations

import pytest

from advisor.nlu.ask import Ask
from advisor.nlu.reader import shared_understanding
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def ask_of():
    understanding, catalog = shared_understanding(), load_catalog()
    return lambda message: Ask.read(understanding.read(message, []), catalog)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("The vendor quoted three setups: 2x H100, 4x L40S or 1x H200, for Qwen2.5-32B serving 40 staff. Which one?",
         (("h100-sxm", 2), ("l40s", 4), ("h200-sxm", 1))),
        ("Is it smarter to get 4 used RTX 3090s or 2 RTX 4090s for Llama 3.1 70B in my homelab?", (("rtx-3090", 4), ("rtx-4090", 2))),
        ("A100 80GB x2 vs H100 x1 for LoRA on a 13B model?", (("a100-80gb-sxm", 2), ("h100-sxm", 1))),
        ("预算有限，8张L20还是4张H20来跑Qwen2.5-72B？", (("l20", 8), ("h20", 4))),
        ("经销商给了两个报价：2张H100、4张L40S，部署Qwen2.5-32B选哪个？", (("h100-sxm", 2), ("l40s", 4))),
        # not a shortlist: cards added to each other, or a single card
        ("We run 2 A100s and want to add 4 L40S for Llama 70B serving", ()),
        ("我们有两张4090，能跑Qwen2.5-32B吗？", ()),
    ],
)
def test_candidate_configs_are_read_from_the_words(ask_of, message, expected):
    ask = ask_of(message)
    assert ask.candidate_configs == expected
    assert ask.weighs_shortlist is bool(expected)


@pytest.mark.parametrize(
    ("message", "holds"),
    [
        ("We have quotes for 2x H100 or 4x L40S to serve Qwen2.5-32B, which one?", False),
        ("We have a budget for 4 L40S, can they run Llama 3.3 70B?", False),
        ("I have 2 RTX A6000s, what can I serve on them?", True),
        ("We already own 16 A100s; what should we run Qwen2.5-72B on?", True),
        ("我们有供应商的报价：4张L20，够不够跑Qwen2.5-72B？", False),
        ("我手上有两张4090，跑Qwen2.5-32B够吗？", True),
    ],
)
def test_cards_are_owned_only_when_said_so(ask_of, message, holds):
    assert ask_of(message).holds_cards is holds


@pytest.mark.parametrize(
    ("message", "model"),
    [
        ("What GPUs would a 70B model (llama 3.3) need for 20 users?", "llama-3.3-70b"),
        ("Serving qwen 2.5, the 72B one, for our support team: which cards?", "qwen2.5-72b"),
        ("Qwen2.5 at 72B size, which GPU?", "qwen2.5-72b"),
        ("用qwen 2.5 的 72b 做内部问答，需要什么卡？", "qwen2.5-72b"),
        ("一个 70B 的模型（llama 3.3）部署要几张卡？", "llama-3.3-70b"),
    ],
)
def test_a_family_and_a_size_said_apart_are_one_catalog_model(ask_of, message, model):
    assert ask_of(message).workload.model == model


def test_two_sizes_of_one_family_stay_a_range(ask_of):
    """"qwen 2.5 at 7B and 72B": the name carries one size and the other is a second end, not joined to it."""
    assert ask_of("Serving qwen 2.5 at 7B and 72B, which GPUs?").model_sizes_b[-1] == 72


@pytest.mark.parametrize(
    ("message", "named", "owned_words"),
    [
        ("We got quotes for 2x H100, 4x L40S or 1x H200 to serve Qwen2.5-32B for our 40 analysts. Which should we sign?",
         ("2× NVIDIA H100 SXM", "4× NVIDIA L40S", "1× NVIDIA H200 SXM"), ("Use the cards you have", "nothing to buy")),
        ("供应商报了两个方案：2张H100或者4张L40S，部署Qwen2.5-32B给40个人用，哪个合适？",
         ("2× NVIDIA H100 SXM", "4× NVIDIA L40S"), ("用现有的卡", "无需采购")),
    ],
)
def test_a_shortlist_is_answered_option_by_option(offline_advisor, message, named, owned_words):
    answer = offline_advisor.answer(message, []).answer
    head = answer.split("|")[0]  # the lead and the verdict, before the table
    assert all(option in head for option in named)
    assert not any(word in answer for word in owned_words)


@pytest.mark.parametrize(
    ("message", "quantised", "edition"),
    [
        ("Would 4 used RTX 3090s or 2 RTX 4090s run Llama 3.1 70B better at home?", "4-bit AWQ weights", None),
        ("买4张二手3090还是2张4090跑qwen 2.5 的 72b？", "4 位 AWQ 权重", "RTX 4090 D"),
    ],
)
def test_cards_that_hold_no_bf16_are_weighed_quantised(offline_advisor, message, quantised, edition):
    response = offline_advisor.answer(message, [])
    assert "Fits" in response.answer or "放得下" in response.answer  # weighed as such cards run it, not "no option fits"
    assert quantised in response.answer
    if edition:  # a mainland buyer hears the China edition of the part that cannot be bought new
        assert edition in response.answer
