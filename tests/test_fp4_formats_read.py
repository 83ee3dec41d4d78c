"""NVFP4 and MXFP4 written in a question are read as those formats (knowledge/number_formats.yaml), not as
bitsandbytes 4-bit: the weights line names the format the user asked about. Wording is our own; both languages."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls


@pytest.mark.parametrize(
    ("message", "precision"),
    [
        ("How much VRAM does Qwen2.5-72B take in NVFP4 on a single B200?", "nvfp4"),
        ("gpt-oss-120b 用 MXFP4 在一张 H100 上要多少显存？", "mxfp4"),
    ],
)
def test_a_block_scaled_fp4_format_is_sized_as_itself(offline_advisor, message, precision):
    reply = ask(offline_advisor, message)
    sized = calls(reply, "estimate_memory")
    assert sized and sized[0].args.get("precision") == precision, [c.args for c in sized]
    assert "bitsandbytes" not in reply.answer
