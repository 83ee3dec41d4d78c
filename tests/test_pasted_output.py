"""``Ask.pasted_output``: a line of tool output the troubleshooting parsers read is told from words describing a failure
(the route continues_troubleshoot takes such a line as more evidence, however unsure the classifier is of it)."""

from __future__ import annotations

import pytest

from tools.troubleshoot.diagnose import pasted_output


@pytest.mark.parametrize(
    ("text", "pasted"),
    [
        ("NVRM: Xid (PCI:0000:5e:00): 79, pid=4410, GPU has fallen off the bus.", True),
        ("worker3:55:55 [4] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>", True),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.10 GiB of which 312.00 MiB is free.", True),
        ("日志：worker3:55:55 [4] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>", True),
        ("the job runs out of memory on our 48 GB cards", False),
        ("GPU utilisation hovers around 40% and the cards sit at 83C", False),
        ("训练跑了两个小时就卡住了", False),
        ("we saw an Xid 48 yesterday", False),
        ("", False),
    ],
)
def test_output_is_told_from_a_description(text, pasted):
    assert pasted_output(text) is pasted
