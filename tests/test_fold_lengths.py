"""What each task's answer shows above the fold, measured in screen lines (advisor.markdown's wrap), in both languages:
the part read first fits about one screen and its first block (the verdict) is short enough that the reasoning after it
is still on that screen (#36: verdict first; long leads folded). Run with -s to see the table. Our own wording."""

from __future__ import annotations

import pytest

from advisor.markdown import FOLD_LINES, _screen_lines
from tests.threads import ask

VERDICT_LINES = 8  # the first block: the verdict and its figure, never a wall of defaults

QUESTIONS = {
    "memory": ["How much VRAM does Qwen2.5-14B need in bf16 with 8k context?", "Qwen2.5-14B用bf16、8k上下文要多少显存？"],
    "recommend": ["Which GPU should we buy to serve Llama 3.1 70B to 40 users?", "给40个人部署Llama 3.1 70B，买什么卡？"],
    "serving_speed": ["How many tokens/s does Qwen2.5-32B get on two L40S for 16 users?", "两张L40S跑Qwen2.5-32B，16个并发每人多少token/s？"],
    "training_time": ["How long to pretrain a 3B model on 500B tokens with 32 H100?", "32张H100预训练3B模型500B token要多久？"],
    "tco": ["Rent or buy 16 A100 for three years at 50% utilisation?", "16张A100用三年，利用率50%，租还是买？"],
    "specs": ["What are the specs of the L20?", "L20的参数是什么？"],
    "facility": ["How much power does a server with 8 H200 draw?", "一台8卡H200服务器功耗多少？"],
    "concept": ["What is tensor parallelism?", "什么是张量并行？"],
    "max_fit": ["What is the largest model I can run on two RTX 3090s?", "两张3090最大能跑多大的模型？"],
}
THREADS = {
    "scaling": [("How fast is Mistral 7B on one L40S for 8 users?", "would 2 of them be twice as fast?"),
                ("一张L40S跑Mistral 7B，8个并发多快？", "两张是不是就快一倍？")],
    "interconnect": [("Which GPUs to serve Qwen2.5-32B to 30 users?", "does that setup need NVLink?"),
                     ("给30个人部署Qwen2.5-32B推荐什么卡？", "这套要不要NVLink？")],
}
CASES = [(task, question) for task, pair in QUESTIONS.items() for question in pair]
CASES += [(kind, thread) for kind, pairs in THREADS.items() for thread in pairs]


def screen(summary: str) -> tuple[int, int]:
    blocks = [block for block in summary.split("\n\n") if block.strip()]
    return sum(_screen_lines(block) for block in blocks), (_screen_lines(blocks[0]) if blocks else 0)


@pytest.mark.parametrize(("kind", "asked"), CASES, ids=[f"{kind}-{index}" for index, (kind, _) in enumerate(CASES)])
def test_the_part_above_the_fold_fits_one_screen_with_a_short_verdict(offline_advisor, kind, asked):
    messages = asked if isinstance(asked, tuple) else (asked,)
    reply = ask(offline_advisor, messages[-1], *messages[:-1])
    total, first = screen(reply.summary)
    print(f"\n{kind:14} {reply.language} above the fold: {total} lines, verdict block {first}")
    assert total <= FOLD_LINES, reply.summary
    assert first <= VERDICT_LINES, reply.summary
