"""A message that asks two things gets two answers: each part of it is answered by a calculation, a card, the
facility plan or a plain "I can't answer that; here is what I can do" line — never dropped, never the same card
twice. Wording is our own; both languages."""

from __future__ import annotations

import pytest

from advisor.offline.tasks.dialogue.render import PARTS as WORDING, verdict_of


def _parts(reply) -> list[str]:
    """The numbered parts of a several-question answer, each from its heading to the next."""
    text = reply.answer
    pieces, index = [], 1
    while (start := text.find(f"**{index}.**")) >= 0:
        end = text.find(f"**{index + 1}.**", start)
        pieces.append(text[start : end if end >= 0 else len(text)])
        index += 1
    return pieces


CASES = [
    # (message, language, tool the second part must call or None for a card, words its answer must hold)
    ("Does an 8x H100 server hold Llama 3.1 70B in BF16? And how should we cool that server?", "en", None, ["air"]),
    ("8卡H100能放下Llama 3.1 70B吗？两台之间要用什么网络？", "zh", "size_fabric", ["交换机"]),
    ("Can one RTX 4090 run Qwen2.5 14B? And how would my team log in remotely?", "en", None, ["can't answer"]),
    ("单张4090能跑Qwen2.5 14B吗？团队怎么远程登录这台机器？", "zh", None, ["答不了"]),
    ("Are second-hand H100s a sensible purchase? What can go wrong with them?", "en", None, []),
    ("二手H100值得入手吗？会有哪些隐患？", "zh", None, []),
]


@pytest.mark.parametrize(("message", "language", "tool", "words"), CASES, ids=[f"{lang}-{i}" for i, (_, lang, _, _) in enumerate(CASES)])
def test_every_part_gets_an_answer_of_its_own(offline_advisor, message, language, tool, words):
    reply = offline_advisor.answer(message, [])
    assert reply.language == language
    parts = _parts(reply)
    assert len(parts) == 2, reply.answer[:400]
    bodies = [part.split("\n\n", 1)[-1] for part in parts]  # past the quoted question
    verdicts = [verdict_of(body) for body in bodies]
    assert all(verdicts), verdicts
    assert verdicts[0] != verdicts[1]  # two questions, two different answers
    opening = reply.summary.split("\n")[0]
    assert "(1)" in opening.replace("（", "(").replace("）", ")") and "(2)" in opening.replace("（", "(").replace("）", ")")
    if tool:
        assert tool in {c.name for c in reply.tool_calls}
    for word in words:
        assert word in parts[1], parts[1][:300]


def test_a_value_only_second_part_is_the_same_calculation_told_in_steps(offline_advisor):
    reply = offline_advisor.answer("How much memory does Qwen2.5 7B need? And at 32k context?", [])
    assert not _parts(reply)  # one calculation, not two answers
    assert [c.name for c in reply.tool_calls].count("estimate_memory") >= 1


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_part_with_the_same_card_as_the_one_before_points_back_instead_of_repeating(language):
    from advisor.offline.tasks.dialogue.render import without_repeats

    class Turnish:  # the wording only needs the language
        def t(self, en, zh):
            return en if language == "en" else zh

        def text(self, value):
            return value

    same = "**Card title**\n\nYes, if the price is right.\n\nMore text."
    kept = without_repeats(Turnish(), [same, same, "**Other**\n\nNo.\n"])
    assert kept[0] == same and kept[2].endswith("No.\n")
    expected = WORDING.entry("repeated")[language].format(index=1)
    assert kept[1] == expected
