"""A troubleshooting follow-up that reports a check's result ("dmesg shows no Xid", "ibstat looks fine") continues the
diagnosis with that evidence: what the check rules out is said first and the next checks follow, never the first
answer again nor the "nothing changes the calculation" reply. The checks are rows of the thread facts
(knowledge/troubleshooting/facts/thread_facts.yaml) that set stated-setup fields the rules read."""

from __future__ import annotations

import pytest

from tests.threads import lead, thread
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import load_rulebook



# (message as the newest line of a thread, the fact it reports)
REPORTED_CHECKS = [
    ("the kernel log is clean, no Xid at all", "kernel_log_clean"),
    ("dmesg 里没有任何 Xid 报错", "kernel_log_clean"),
    ("ibstat is fine on both nodes", "fabric_healthy"),
    ("两台的 ibstat 都没问题", "fabric_healthy"),
    ("nvidia-smi still shows all the GPUs", "all_gpus_visible"),
    ("重启后卡都能看到了", "all_gpus_visible"),
]


@pytest.mark.parametrize(("message", "fact"), REPORTED_CHECKS)
def test_a_reported_check_is_a_fact_of_the_diagnosis(message, fact):
    result = diagnose(TroubleshootRequest(text=message), load_rulebook())
    assert fact in [found.id for found in result.facts]


@pytest.mark.parametrize("newest", ["dmesg shows nothing, no xid errors", "dmesg里没有看到Xid"])
def test_a_clean_kernel_log_rules_out_a_card_off_the_bus(newest):
    described = diagnose(TroubleshootRequest(text="GPU fell off the bus during training"), load_rulebook())
    assert "xid-79" in [finding.rule_id for finding in described.findings]
    checked = diagnose(TroubleshootRequest(text=f"{newest}\nGPU fell off the bus during training"), load_rulebook())
    assert "xid-79" not in [finding.rule_id for finding in checked.findings]


# (thread, words of the next check that the reported evidence leaves, words of the first answer's lead that must go)
THREADS = [
    (["Training on one node froze and a GPU seems to have vanished", "nvidia-smi shows all 8 GPUs now, what should I look at?"],
     "dmesg", None),
    (["训练跑着跑着GPU掉卡了", "dmesg里没有Xid，下一步查什么"], "ipmitool sel list", "Xid 79"),
    (["两台机器之间 NCCL all-reduce 特别慢", "ibstat看着正常，接下来查什么？"], "NCCL_DEBUG=INFO", None),
]


@pytest.mark.parametrize(("messages", "next_check", "gone"), THREADS, ids=["en-all-gpus", "zh-no-xid", "zh-ibstat"])
def test_a_follow_up_with_a_check_result_continues_the_diagnosis(offline_advisor, messages, next_check, gone):
    first, follow_up = thread(offline_advisor, *messages)
    assert follow_up.language == first.language
    assert follow_up.summary.strip() != first.summary.strip()
    opening = lead(follow_up)
    assert next_check in opening, follow_up.summary
    if gone:
        assert gone not in opening, follow_up.summary
    assert "changes the calculation" not in follow_up.summary and "改变上面计算" not in follow_up.summary


# An explanation asked beside a calculation is a part of its own, answered by the card on that concept (verdict first),
# not by a neighbouring card on shrinking it.
EXPLAINED = [
    ("How much memory does Llama-3-70B need for inference at FP16? And what is the KV cache, explained for my manager?",
     "short-term memory"),
    ("用两张4090跑Qwen2.5-32B够吗？顺便解释下什么是KV cache", "短期记忆"),
]


@pytest.mark.parametrize(("message", "concept_words"), EXPLAINED, ids=["en", "zh"])
def test_a_concept_asked_beside_a_calculation_gets_its_own_card(offline_advisor, message, concept_words):
    response = offline_advisor.answer(message, [])
    parts = response.summary.split("**2.**")
    assert len(parts) == 2, response.summary
    second = parts[1].split("\n\n", 2)[1]  # the part's question, then its answer
    assert second.strip().startswith(("The KV cache", "KV 缓存")), second
    assert concept_words in second
