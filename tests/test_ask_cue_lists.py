"""The 'asks why' and 'asks for a count' flags come from cue lists in data/ask_cues.yaml, in both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.cues import dialogue_cue, says


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("how come it needs that much?", True),
        ("can you break that down for me", True),
        ("what did you assume for the batch?", True),
        ("assume 45% mfu and redo it", False),
        ("这个显存是怎么算出来的", True),
        ("你用了哪些假设", True),
        ("假设MFU按45%重新算", False),
        ("换成fp8呢", False),
    ],
)
def test_asks_why(message, expected):
    assert says("asks_why", message) is expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("how many H100s would a 405B model need?", True),
        ("how many more nodes should we add", True),
        ("how many tokens per second will it do", False),
        ("how many more GB would int8 save", False),
        ("how many users can one box serve", False),
        ("跑70B推理需要多少张卡", True),
        ("要几台服务器", True),
        ("每秒能出多少token", False),
    ],
)
def test_asks_count(message, expected):
    assert says("asks_count", message) is expected


@pytest.mark.parametrize(
    ("cue", "message", "expected"),
    [
        ("aside", "unrelated, but is nvlink worth it in general?", True),
        ("aside", "题外话，国产卡现在怎么样", True),
        ("courtesy", "cheers, that makes sense", True),
        ("courtesy", "辛苦了，学到了", True),
        ("courtesy", "IT负载是多少", False),  # an English cue touching Chinese is no word of its own
        ("refers_back", "is that still true with zero-3?", True),
        ("refers_back", "16台B200整机的IT负载是多少", False),
        ("refers_back", "换成fp8的话会不会更快", True),
        ("choice", "vllm or sglang for this?", True),
        ("choice", "zero2还是zero3", True),
        ("choice", "a 70b model on origin servers", False),
    ],
)
def test_dialogue_cues(cue, message, expected):
    assert dialogue_cue(cue, message) is expected
