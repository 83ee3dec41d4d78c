"""Verdicts read from the evidence itself: the watchdog's fields (which collective timed out), a pattern described in
words (a whole row of servers throttling), and a hardware fault's disposition (replace, reset and watch, software).

Wording here is our own (not from the issue, the briefs or either understanding split)."""

from __future__ import annotations

import pytest

from advisor.contract import ChatTurn
from knowledge.bilingual import Text
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import Rule, load_rulebook
from tools.troubleshoot.stated import StatedSetup


def watchdog_line(seq: int, op: str = "ALLREDUCE", numel: int = 1, rank: int = 4) -> str:
    return (
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) "
        "ran for 600117 milliseconds before timing out."
    )


def ranked(text: str, **setup) -> list[str]:
    request = TroubleshootRequest(text=text, setup=StatedSetup(**setup) if setup else None)
    return [finding.rule_id for finding in diagnose(request, load_rulebook()).findings]


def ask(advisor, message: str, *earlier: str) -> str:
    history = []
    for text in earlier:
        history += [ChatTurn(role="user", content=text), ChatTurn(role="assistant", content=advisor.answer(text, history).answer)]
    return advisor.answer(message, history).answer


# --- the watchdog's fields ---


@pytest.mark.parametrize("seq", [1, 2])
def test_a_timeout_of_the_first_collective_is_a_connection_problem(seq):
    order = ranked(watchdog_line(seq), nodes=3, gpus=24)
    assert order[0] == "nccl-first-collective-timeout"
    assert "nccl-watchdog-timeout" in order[1:]  # still listed, but after the connection


def test_a_timeout_deep_into_the_run_is_not_read_as_a_connection_problem():
    order = ranked(watchdog_line(73012, numel=134217728), nodes=3, gpus=24)
    assert order[0] == "nccl-watchdog-timeout" and "nccl-first-collective-timeout" not in order


def test_on_one_server_the_first_collective_points_at_peer_to_peer_not_the_network():
    request = TroubleshootRequest(text=watchdog_line(1), setup=StatedSetup(nodes=1, gpus=8))
    top = diagnose(request, load_rulebook()).findings[0]
    assert top.rule_id == "nccl-first-collective-timeout"
    commands = " ".join(action.command or "" for action in top.actions)
    assert "NCCL_P2P_DISABLE=1" in commands
    assert "NCCL_IB_GID_INDEX" not in commands and "ping -M do" not in commands


def test_the_first_collective_answer_quotes_the_fields_and_names_the_network_checks(offline_advisor):
    answer = ask(offline_advisor, f"three nodes of 8 GPUs, it never trains, every rank prints:\n{watchdog_line(1)}")
    first = answer.split("\n")[0]
    assert first.startswith("**The collective that timed out is the job's first (SeqNum=1, ALLREDUCE of 1 element")
    assert "not at a slow or crashed rank" in first
    assert "NCCL_SOCKET_IFNAME" in answer and "MTU" in answer
    assert "Another rank died or diverged first" not in first


def test_the_first_collective_answer_in_chinese(offline_advisor):
    answer = ask(offline_advisor, f"四台机器，每台 8 张卡，一启动各个 rank 都打印：\n{watchdog_line(1, op='BROADCAST')}")
    assert answer.startswith("**超时的是任务的第一次集合通信（SeqNum=1，1 个元素的 BROADCAST）")
    assert "NCCL_SOCKET_IFNAME" in answer and "防火墙" in answer


def test_a_late_timeout_names_its_collective_and_sends_the_search_to_the_ranks(offline_advisor):
    answer = ask(offline_advisor, watchdog_line(51877, numel=67108864))
    assert answer.startswith("**Collective number 51,877 (ALLREDUCE) timed out after 10 min")
    assert "earliest error on any rank" in answer


def test_a_late_timeout_in_chinese_with_the_timeout_question_answered_first(offline_advisor):
    answer = ask(offline_advisor, f"两台机器跑了三个小时以后报错，能不能把超时调大？\n{watchdog_line(51877, numel=67108864)}")
    first, second = answer.split("\n\n")[:2]
    assert first.startswith("不建议")
    assert second.startswith("**第 51,877 次集合通信（ALLREDUCE）在 10 分钟后超时")


def test_a_verdict_may_only_quote_setup_fields_or_its_own_parsers():
    base = {
        "id": "probe", "family": "nccl", "title": {"en": "t", "zh": "t"}, "weight": 0.5, "parser": "nccl",
        "when": ["kind == 'watchdog_timeout'"], "causes": [{"en": "c", "zh": "c"}], "actions": [{"en": "a", "zh": "a"}],
    }  # fmt: skip
    assert Rule.model_validate({**base, "verdict": {"en": "{seq_num} {nodes}", "zh": "{seq_num} {nodes}"}}).verdict
    with pytest.raises(ValueError, match="requested_mib"):
        Rule.model_validate({**base, "verdict": {"en": "{requested_mib}", "zh": "{requested_mib}"}})


# --- a pattern described in words: servers that share a row or rack ---


def test_a_row_that_throttles_together_leads_with_the_shared_cooling_or_power():
    order = ranked("every server in one row loses GPU clocks after a few minutes at full load; the other rows are fine")
    assert order[0] == "facility-cooling-power"


def test_clocks_that_drop_on_one_box_are_not_blamed_on_the_room():
    order = ranked("the sm clocks drop to 1200 MHz on my workstation while training")
    assert order[0] != "facility-cooling-power"


def test_the_row_answer_names_inlet_temperature_and_the_throttle_reason_query(offline_advisor):
    answer = ask(offline_advisor, "a whole rack of our H100 nodes drops its clocks a few minutes into load, the rest of the hall is fine")
    assert answer.startswith("**Most likely cause: The servers throttle together because of what they share")
    assert "nvidia-smi -q -d PERFORMANCE" in answer and "inlet" in answer.lower()
    assert "can't match" not in answer


def test_the_row_answer_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "机房里同一排的服务器跑满几分钟后频率就掉下来了，别的排都没事")
    assert answer.startswith("**最可能的原因：这些服务器一起降频")
    assert "进风温度" in answer and "nvidia-smi -q -d PERFORMANCE" in answer


def test_the_row_said_in_a_follow_up_moves_the_room_to_the_front(offline_advisor):
    answer = ask(offline_advisor, "turns out it's only the servers in the same rack, the others are fine",
                 "our GPUs throttle a few minutes into every training run")  # fmt: skip
    meaning, lead = answer.split("\n\n")[:2]
    assert meaning.startswith("A fault limited to the servers of one row or rack")  # what the new fact means, first
    assert "The servers throttle together" in lead


def test_the_rack_said_in_a_chinese_follow_up(offline_advisor):
    answer = ask(offline_advisor, "查了一下，只有同一个机柜里的机器会这样，其他机柜正常", "训练每次跑几分钟 GPU 就开始降频")
    meaning, lead = answer.split("\n\n")[:2]
    assert meaning.startswith("故障只出现在同一排或同一个机柜的服务器上") and "这些服务器一起降频" in lead


# --- hardware faults: the disposition first ---


@pytest.mark.parametrize(
    ("text", "opening"),
    [
        ("kernel log: NVRM: Xid (PCI:0000:41:00): 64, pid=3310, Row Remapper: row remapping failed", "**Replace (RMA) if it survives one reset"),
        ("NVRM: Xid (PCI:0000:41:00): 94, pid=3310, Contained: SM (0x1). RST: No, D-RST: No", "**No RMA — restart the job"),
        ("NVRM: Xid (PCI:0000:41:00): 63, pid=3310, Row Remapper: New row marked for remapping, reset gpu to activate.", "**Reset and watch — no replacement"),
    ],
)
def test_a_hardware_fault_opens_with_what_to_do_with_the_card(offline_advisor, text, opening):
    answer = ask(offline_advisor, text)
    assert answer.startswith(opening)


def test_a_lost_card_asked_about_an_rma_is_answered_once_with_the_evidence_to_send(offline_advisor):
    answer = ask(offline_advisor, "NVRM: Xid (PCI:0000:1b:00): 79, pid=2207, GPU has fallen off the bus.\nshould we RMA this card?")
    assert answer.startswith("**Reboot and watch, not an RMA yet")
    assert answer.count("Reboot and watch") == 1  # the question's answer is the verdict: not said again as the lead
    assert "serial number and UUID" in answer and "nvidia-bug-report" in answer


def test_a_remap_failure_in_chinese_says_replace(offline_advisor):
    answer = ask(offline_advisor, "nvidia-smi -q 里 2 号卡显示 Remapping Failure Occurred: Yes，这张卡要换吗")
    assert answer.startswith("**换卡（RMA）：行重映射失败")
    assert "序列号和 UUID" in answer


def test_an_uncontained_error_in_chinese_says_reset_now(offline_advisor):
    answer = ask(offline_advisor, "NVRM: Xid (PCI:0000:41:00): 95, pid=3310, Uncontained: FBHUB. 怎么处理")
    assert answer.startswith("**立即重置并观察")


def test_every_verdict_of_a_hardware_disposition_is_bilingual_and_has_a_replace_answer():
    book = load_rulebook()
    for rule_id in ("xid-48", "xid-63", "xid-64", "xid-79", "xid-94", "xid-95", "row-remap-failure", "ecc-sram-rma"):
        rule = book.rule(rule_id)
        assert isinstance(rule.verdict, Text) and rule.verdict.en and rule.verdict.zh
        assert "replace_card" in rule.asks, rule_id


# --- evidence quotes the log, not the question typed after it ---


def test_a_question_typed_after_the_log_line_is_not_quoted_as_evidence(offline_advisor):
    answer = ask(offline_advisor, "NVRM: Xid (PCI:0000:1b:00): 79, pid=2207, GPU has fallen off the bus. Is it time to RMA this card?")
    assert "`NVRM: Xid (PCI:0000:1b:00): 79, pid=2207, GPU has fallen off the bus.`" in answer
    assert "time to RMA this card?`" not in answer


def test_a_chinese_question_after_the_log_line_is_not_quoted_either(offline_advisor):
    answer = ask(offline_advisor, "NVRM: Xid (PCI:0000:3b:00): 48, An uncorrectable double bit error (DBE) has been detected on GPU. 这张卡得换吗？")
    assert "has been detected on GPU.`" in answer and "得换吗？`" not in answer


# --- a lever already pulled is not offered again ---


def test_an_interface_already_pinned_is_not_offered_again_and_the_rdma_checks_lead(offline_advisor):
    answer = ask(offline_advisor, "both nodes already run with NCCL_SOCKET_IFNAME=ens1f0", f"two RoCE nodes:\n{watchdog_line(1)}")
    assert answer.startswith("With NCCL pinned to the same interface on every node")
    assert "export NCCL_SOCKET_IFNAME=<iface>" not in answer  # the pulled lever's own step is gone
    assert "NCCL_IB_GID_INDEX" in answer and "ping -M do" in answer


def test_an_interface_already_pinned_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "两台机器都已经指定了网卡 NCCL_SOCKET_IFNAME=ens1f0", f"两台 RoCE 机器：\n{watchdog_line(1)}")
    assert answer.startswith("每台节点都已把 NCCL 固定到同一块网卡")
    assert "export NCCL_SOCKET_IFNAME=<iface>" not in answer and "GID" in answer
