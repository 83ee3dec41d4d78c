"""Where a sentence of answer text ends (knowledge/sentences.py, its data in sentences.yaml), in both languages, and
what that does to an answer: the several-question opening line quotes whole first sentences, and a part's long card
paragraph is cut between sentences so two parts share one screen (#36). Our own wording."""

from __future__ import annotations

import pytest

from advisor.markdown import FOLD_LINES, first_sentences, fold, screen_lines
from knowledge.sentences import first_sentence, rules, sentence_ends, sentences

SPLITS = [
    # an abbreviation's full stop ends no sentence
    ("Yes: the plugin runs on Atlas A2 boards, i.e. the 910B family. Its matrix lists more.",
     ["Yes: the plugin runs on Atlas A2 boards, i.e. the 910B family.", "Its matrix lists more."]),
    ("Quantise the weights (e.g. AWQ at 4 bits). Then measure again.",
     ["Quantise the weights (e.g. AWQ at 4 bits).", "Then measure again."]),
    ("H100 vs. A100: about 2x for training. Check your kernels.", ["H100 vs. A100: about 2x for training.", "Check your kernels."]),
    ("E.g. a 70B model needs two cards. Fine.", ["E.g. a 70B model needs two cards.", "Fine."]),
    # a full stop inside a number or a version ends none; one before a space or the end does
    ("It reads 1.5 TB/s on v0.7.3 builds. Done", ["It reads 1.5 TB/s on v0.7.3 builds.", "Done"]),
    ("Is it enough? Yes! Buy two.", ["Is it enough?", "Yes!", "Buy two."]),
    # Chinese: full-width marks end a sentence where they stand, but not inside brackets or quotes
    ("能：插件可在 Atlas A2 硬件（即 910B。不含 310P）上运行。其余见下！", ["能：插件可在 Atlas A2 硬件（即 910B。不含 310P）上运行。", "其余见下！"]),
    ("厂商说「已支持。」我们实测仍有问题。", ["厂商说「已支持。」我们实测仍有问题。"]),
    ("两张卡够吗？够，即每卡 40 GB。再加余量。", ["两张卡够吗？", "够，即每卡 40 GB。", "再加余量。"]),
    # English abbreviations inside Chinese prose
    ("可以量化（e.g. AWQ）。然后再测。", ["可以量化（e.g. AWQ）。", "然后再测。"]),
    # a bracket that never closes hides no sentence after it
    ("An open (note here. And more. End.", ["An open (note here.", "And more.", "End."]),
]


@pytest.mark.parametrize(("text", "expected"), SPLITS, ids=[text[:24] for text, _ in SPLITS])
def test_sentences_end_at_real_ends_only(text, expected):
    assert sentences(text) == expected
    assert first_sentence(text) == expected[0]


def test_the_rules_are_data():
    data = rules()
    assert {"i.e.", "e.g.", "vs."} <= data.abbreviations
    assert "etc." not in data.abbreviations  # it ends sentences as often as not: a verdict cut early reads better
    assert data.brackets["（"] == "）" and "。" in data.ends_closed
    assert sentence_ends("") == [] and sentences("no end at all") == ["no end at all"]


def test_a_long_paragraph_is_cut_between_sentences_to_fit_its_share():
    paragraph = " ".join(f"Sentence {n} says something about the card, e.g. its memory and bandwidth at length." for n in range(12))
    body = paragraph + "\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert fold(body, limit=3)[0] == paragraph  # one answer keeps its first block whole ("why?" shows it alone)
    shown, rest = fold(body, limit=3, cut_first=True)
    assert screen_lines(shown) <= 3 and shown.endswith(".") and rest.startswith("Sentence")
    assert "| a | b |" in rest and "e.g." in shown
    # at least the first sentence stays above, however small the share
    one, _ = first_sentences(paragraph, 0)
    assert one == first_sentence(paragraph)
    # a table, a list or bold across the cut is never split
    assert first_sentences("- one. two.\n- three.", 1) == ("- one. two.\n- three.", "")
    assert first_sentences("**All of this is bold. And this.**", 0) == ("**All of this is bold. And this.**", "")


def test_chinese_paragraph_is_cut_between_sentences_without_spaces():
    paragraph = "".join(f"第{n}句说明这张卡的显存、带宽和功耗，即用户最常问的三项指标，内容较长需要换行显示。" for n in range(10))
    shown, rest = first_sentences(paragraph, 2)
    assert screen_lines(shown) <= 2 and shown.endswith("。") and " " not in shown
    assert shown + rest == paragraph


TWO_PART = [
    "Will vLLM work on Ascend 910B cards? How many engineer-weeks would porting our CUDA serving stack take?",
    "昇腾910B上能用vLLM吗？把我们CUDA上的推理服务迁过去大概要几个人周？",
]


@pytest.mark.parametrize("question", TWO_PART)
def test_a_two_part_card_question_fits_one_screen_with_whole_verdicts(offline_advisor, question):
    reply = offline_advisor.answer(question, [])
    blocks = [block for block in reply.summary.split("\n\n") if block.strip()]
    assert sum(screen_lines(block) for block in blocks) <= FOLD_LINES, reply.summary
    opening = blocks[0]
    assert "…" not in opening and "i.e. (2)" not in opening, opening  # each part's verdict quoted whole
    assert ("910B" in opening.split("(2)")[0]) if reply.language == "en" else ("910B" in opening.split("（2）")[0])
    # what went below the fold keeps its part's heading
    assert reply.details.lstrip().startswith(("**1.**", "**2.**")), reply.details[:200]
