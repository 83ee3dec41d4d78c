"""Verdict first, details folded: the contract's summary/details, the planner's split and every door's fold."""

from __future__ import annotations

import re

import pytest

from advisor.contract import AdvisorResponse
from advisor.interfaces.slack import DETAILS_HEADING, render_response
from advisor.interfaces.web_chat import decorate_answer
from advisor.markdown import FOLD_LINES, fold

TABLE = "\n".join(["| Part | GB |", "|---|---|", *(f"| row {i} | {i} |" for i in range(20))])


def test_fold_keeps_the_verdict_and_what_fits_and_never_cuts_a_block():
    verdict = "**Yes: one H200 server holds it** (about 700 GB of 1,128 GB)."
    reasons = "- weights ship in FP8\n- KV cache for 8 users at 32k: 61 GB"
    summary, details = fold("\n\n".join([verdict, reasons, TABLE, "**Sources**\n- a"]))
    assert summary == f"{verdict}\n\n{reasons}"
    assert details.startswith("| Part | GB |") and details.endswith("**Sources**\n- a")
    only, nothing = fold(TABLE)  # one block longer than a screen still shows: it is the answer
    assert only == TABLE and nothing == ""


def test_a_title_alone_never_ends_what_is_read_first():
    summary, details = fold(f"**Likely causes**\n\n{TABLE}\n\nmore")
    assert summary == f"**Likely causes**\n\n{TABLE}" and details == "more"


def test_a_long_prose_line_counts_as_the_lines_it_wraps_to():
    long_line = "word " * 400  # ≈ 2,000 characters: far more than a screen
    summary, details = fold(f"Verdict first.\n\n{long_line}\n\nlast")
    assert summary == "Verdict first." and details.startswith("word")
    assert FOLD_LINES >= 10


def test_a_comparison_table_of_a_screen_stays_with_its_lead_whatever_its_cell_widths():
    wide = "| Link | " + " | ".join(["NVLink 5: 1.8 TB/s per GPU (NVSwitch, 8-GPU domain)"] * 3) + " |"
    rows = ["| Spec | A | B | C |", "|---|---|---|---|", wide, *(f"| spec {i} | {i} | {i} | {i} |" for i in range(FOLD_LINES - 3))]
    comparison = "\n".join(rows)
    summary, details = fold(f"Most memory: C.\n\n{comparison}\n\n**Sources**\n- a")
    assert summary == f"Most memory: C.\n\n{comparison}" and details == "**Sources**\n- a"


def test_any_engine_gets_a_summary_and_details_from_its_answer():
    response = AdvisorResponse(answer=f"It fits.\n\n{TABLE}", language="en", mode="llm")
    assert response.summary == "It fits." and response.details == TABLE
    short = AdvisorResponse(answer="No.", language="zh", mode="offline")
    assert short.summary == "No." and short.details == ""


@pytest.mark.parametrize("language, label", [("en", "Details"), ("zh", "细节")])
def test_the_web_chat_folds_the_details_under_a_toggle(language, label):
    response = AdvisorResponse(answer=f"It fits.\n\n{TABLE}", language=language, mode="offline")
    shown = decorate_answer(response)
    assert shown.startswith("It fits.") and re.search(rf"<details><summary>{label}[^<]*</summary>\n\n\| Part", shown)
    assert shown.rstrip().endswith("</details>")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_slack_posts_the_verdict_then_the_details_as_the_next_replies(language):
    response = AdvisorResponse(answer=f"It fits.\n\n{TABLE}", language=language, mode="offline")
    first, *rest = render_response(response)
    assert first == "It fits." and rest and rest[0].startswith(DETAILS_HEADING[language])


@pytest.mark.parametrize(
    "question, first_words",
    [
        ("How much GPU memory does Qwen2.5-7B need for inference at 8k context?", r"GB"),
        ("部署 Qwen2.5-7B 推理、8k 上下文要多少显存？", r"GB"),
        ("rent or buy 4x H100 for 3 years at 50% utilisation?", r"[Bb]uy|[Rr]ent|pays back|break"),
        ("4张H100用三年，利用率一半，租还是买？", r"买|租|回本"),
    ],
)
def test_offline_answers_lead_with_the_figure_and_fold_the_rest(offline_advisor, question, first_words):
    response = offline_advisor.answer(question, [])
    first_sentence = re.split(r"(?<=[.。!！?？])\s", response.summary.strip(), maxsplit=1)[0]
    assert re.search(first_words, first_sentence), first_sentence
    assert response.answer == "\n\n".join(filter(None, [response.summary, response.details]))
    below = response.details or ""
    assert ("Sources" in below or "参考资料" in below or "Assumptions" in below or "假设" in below) or not response.sources
