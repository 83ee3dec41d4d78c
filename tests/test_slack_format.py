"""Markdown → Slack mrkdwn, message splitting and incoming-text cleanup."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.interfaces.slack_format import FENCE, display_width, slack_to_plain, split_message, to_mrkdwn


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**Verdict:** it fits", "*Verdict:* it fits"),
        ("__bold__ and *italic* and _also italic_", "*bold* and _italic_ and _also italic_"),
        ("~~old~~ new", "~old~ new"),
        ("## Memory **budget**", "*Memory budget*"),
        ("# 显存估算", "*显存估算*"),
        ("see [the guide](https://example.com/a?x=1&y=2)", "see <https://example.com/a?x=1&amp;y=2|the guide>"),
        ("[**bold label**](https://e.com)", "<https://e.com|bold label>"),
        ("<https://e.com/x>", "<https://e.com/x>"),
        ("[local doc](knowledge/docs/en/oom.md)", "local doc"),
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
        ("`x<y> **not bold**`", "`x&lt;y&gt; **not bold**`"),
        ("2 * 3 * 4 = 24", "2 * 3 * 4 = 24"),
        ("snake_case_name stays", "snake_case_name stays"),
        (r"literal \*stars\* and a \| pipe", "literal *stars* and a | pipe"),
        ("- item one\n  * nested", "• item one\n  • nested"),
        ("> **Note** the LLM was down", "> *Note* the LLM was down"),
        ("---", "──────────"),
        ("1. first\n2. second", "1. first\n2. second"),
    ],
)
def test_markdown_to_mrkdwn(markdown, mrkdwn):
    assert to_mrkdwn(markdown) == mrkdwn


def test_code_fence_is_kept_verbatim_except_for_escaping_and_language_tag():
    markdown = "Run:\n```bash\nnvidia-smi --query-gpu=name > gpus.txt && cat **gpus.txt**\n```\nDone"
    assert to_mrkdwn(markdown) == "Run:\n```\nnvidia-smi --query-gpu=name &gt; gpus.txt &amp;&amp; cat **gpus.txt**\n```\nDone"


def test_table_becomes_aligned_code_block_with_cjk_width_and_alignment():
    markdown = "| GPU | 显存 | Price |\n|:---|:---:|---:|\n| **H100** | 80 GB | $27,500 |\n| RTX 4090 | 24 GB | $1,599 |\n| a \\| b | — | <x> |"
    lines = to_mrkdwn(markdown).splitlines()
    assert lines[0] == lines[-1] == FENCE
    header, rule, *rows = lines[1:-1]
    assert header == "GPU      | 显存  |   Price"
    assert rule == "---------+-------+--------"
    assert rows == ["H100     | 80 GB | $27,500", "RTX 4090 | 24 GB |  $1,599", "a | b    |   —   |     &lt;x&gt;"]


def test_table_columns_line_up_in_display_width():
    block = to_mrkdwn("| 参数 | value |\n|---|---|\n| 显存带宽 | 3,350 GB/s |\n| TDP | 700 W |").splitlines()[1:-1]
    bars = {display_width(line.split("|")[0]) for line in block if "|" in line}
    assert len(bars) == 1


def test_split_keeps_short_text_whole_and_breaks_long_text_on_lines():
    assert split_message("one\ntwo") == ["one\ntwo"]
    lines = [f"line {i:03d} " + "x" * 40 for i in range(100)]
    chunks = split_message("\n".join(lines), limit=500)
    assert all(len(c) <= 500 for c in chunks) and len(chunks) > 5
    assert "\n".join(chunks).splitlines() == lines


def test_split_closes_and_reopens_a_code_block_cut_in_two():
    text = "intro\n" + FENCE + "\n" + "\n".join(f"row {i}" for i in range(200)) + "\n" + FENCE + "\noutro"
    chunks = split_message(text, limit=300)
    assert len(chunks) > 2
    for chunk in chunks:
        assert len(chunk) <= 300
        assert chunk.count(FENCE) % 2 == 0, chunk
    assert chunks[-1].endswith("outro")


def test_split_hard_wraps_a_single_overlong_line():
    chunks = split_message("word " * 400, limit=200)
    assert all(len(c) <= 200 for c in chunks)
    assert " ".join(chunks).split() == ["word"] * 400


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=120), max_size=60), st.integers(60, 400))
def test_split_never_exceeds_the_limit_and_loses_no_text(lines, limit):
    text = "\n".join(line.replace(FENCE, "") for line in lines)
    chunks = split_message(text, limit)
    assert all(len(c) <= limit for c in chunks)
    assert "".join("".join(chunks).split()) == "".join(text.split())


def test_slack_text_to_plain_question():
    text = "<@UBOT> can <#C42|gpu-team> fit Qwen2.5-14B on &lt;24 GB &amp; see <https://e.com/x|this> <!here>"
    assert slack_to_plain(text) == "can #gpu-team fit Qwen2.5-14B on <24 GB & see this"
