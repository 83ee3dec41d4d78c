"""`serve --workers N`: answers computed in worker processes equal the in-process ones, knowledge search
runs there too, and a worker that dies is replaced instead of breaking every later request."""

from __future__ import annotations

import os
import signal

import pytest

from advisor.cli import build_parser
from advisor.contract import ChatTurn
from advisor.deps import shared_registry
from advisor.interfaces.workers import AnswerPool, PooledAdvisor, PooledRegistry
from knowledge.bilingual import AdvisorError
from tests.live_server import offline_settings

QUESTIONS = ["我有一个70亿参数模型，该选什么卡？", "rent or buy 8×H100 at 60% utilisation?", "混合精度训练有什么好处？"]


def test_worker_count_is_bounded(capsys):
    assert build_parser().parse_args(["serve", "--workers", "2"]).workers == 2
    assert build_parser().parse_args(["serve"]).workers == 1
    for bad in ("0", "65", "two"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--workers", bad])
    assert "--workers" in capsys.readouterr().err


@pytest.mark.slow
def test_pooled_answers_equal_local_ones_and_a_dead_worker_is_replaced(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path)
    pool = AnswerPool(1, dict(os.environ))
    try:
        pool.spawn()
        (pid,) = pool.wait_ready(timeout_s=240, echo=lambda _: None)
        advisor = PooledAdvisor(pool, settings)
        history = [ChatTurn(role="user", content=QUESTIONS[0]), ChatTurn(role="assistant", content="RTX 4090, 24 GB")]
        for question in QUESTIONS:
            assert advisor.answer(question).answer == offline_advisor.answer(question).answer
        assert advisor.answer("What about training it?", history).answer == offline_advisor.answer("What about training it?", history).answer

        registry = PooledRegistry(shared_registry(), pool)
        hits = registry.run("search_knowledge", {"query": "ZeRO-3 显存", "k": 2}).hits
        assert hits and hits[0].doc_id
        with pytest.raises(AdvisorError) as refused:  # refusals cross the process boundary intact
            registry.run("search_knowledge", {"query": "", "k": 2})
        assert refused.value.zh and refused.value.code

        os.kill(pid, signal.SIGKILL)
        assert advisor.answer(QUESTIONS[1]).answer == offline_advisor.answer(QUESTIONS[1]).answer
    finally:
        pool.close()
