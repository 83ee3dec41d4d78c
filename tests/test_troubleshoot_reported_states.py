"""Troubleshooting from what the user reports in words: clock event reasons typed with their states, sharded training
on cards without NVLink, ECC counts and one slow node said without a log, and heat on one card versus a whole row.

Wording here is our own (not from the issue, the briefs or any review)."""

from __future__ import annotations

import pytest

from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.parsers.smi import parse_reported_reasons
from tools.troubleshoot.rulebook import load_rulebook
from tools.troubleshoot.stated import StatedSetup

RELEVANT_SHARE = 0.25  # the share of the leading score below which an answer leaves a cause out


def findings(text: str, **setup):
    request = TroubleshootRequest(text=text, setup=StatedSetup(**setup) if setup else None)
    return diagnose(request, load_rulebook()).findings


def shown(text: str, **setup) -> list[str]:
    """The causes an answer would show: those within a quarter of the leading one's score."""
    ranked = findings(text, **setup)
    return [f.rule_id for f in ranked if f.score >= RELEVANT_SHARE * ranked[0].score]


# --- reasons typed beside their states ---

TYPED_THERMAL = [
    "our node's GPU 5 lists hw thermal slowdown = active and sw thermal slowdown = active while sw power cap is not active",
    "第5号卡 nvidia-smi 里 HW Thermal Slowdown 为 Active，SW Thermal Slowdown 也是 Active，SW Power Cap 是 Not Active",
    "GPU 5 的降频原因：硬件过热降频 已激活，软件过热降频 激活，软件功耗上限 未激活",
]


@pytest.mark.parametrize("text", TYPED_THERMAL)
def test_typed_reasons_with_states_lead_with_heat_on_that_card(text):
    top = findings(text)[0]
    assert top.rule_id == "thermal-hw-slowdown"
    assert top.parsed["active_reasons"] == "HW Thermal Slowdown, SW Thermal Slowdown"  # the power cap is not among them
    assert top.parsed["sw_power_cap"] == 0.0
    assert top.verdict is not None and "{active_reasons}" in top.verdict.en and "{active_reasons}" in top.verdict.zh


@pytest.mark.parametrize("text", TYPED_THERMAL)
def test_evidence_quotes_the_readings_not_the_sentence(text):
    evidence = findings(text)[0].evidence[0]
    assert evidence.source == "log"
    assert evidence.excerpt.startswith("HW Thermal Slowdown: Active; SW Thermal Slowdown: Active")
    assert "GPU 5" not in evidence.excerpt


def test_heat_on_one_card_says_what_to_check_and_when_to_rma():
    top = findings(TYPED_THERMAL[0])[0]
    steps = " ".join(action.en for action in top.actions)
    for check in ("memory (HBM)", "fans", "Drain", "cold plate", "thermal interface material", "RMA"):
        assert check in steps
    assert "slowest GPU" in " ".join(cause.en for cause in top.causes)
    assert "facility-cooling-power" not in shown(TYPED_THERMAL[0])


@pytest.mark.parametrize(
    ("text", "field", "state"),
    [
        ("hw slowdown: 1 and hw power brake slowdown: 0", "hw_power_brake_slowdown", 0.0),
        ("HW Slowdown 是 未激活", "hw_slowdown", 0.0),
        ("HW Slowdown: yes", "hw_slowdown", 1.0),
        ("clocks_event_reasons.sw_power_cap=Active", "sw_power_cap", 1.0),
        ("SW Thermal Slowdown inactive", "sw_thermal_slowdown", 0.0),
    ],
)
def test_each_state_word_reads_the_right_way(text, field, state):
    record = parse_reported_reasons(text)
    assert record is not None and record.values[field] == state


def test_a_reason_named_without_a_state_is_not_read():
    assert parse_reported_reasons("is HW Slowdown on GPU 3 something to worry about") is None
    assert parse_reported_reasons("what does sw thermal slowdown mean") is None


def test_only_hw_slowdown_active_does_not_claim_the_other_reasons_were_off():
    top = findings("HW Slowdown: Active, everything else untouched")[0]
    assert top.rule_id == "thermal-hw-slowdown-other"
    causes = " ".join(cause.en for cause in top.causes)
    assert "inactive" not in causes


# --- heat said in words: one box versus a row ---


@pytest.mark.parametrize("text", ["the fans are loud all the time and the clocks keep dropping under load", "风扇狂转，频率一直往下掉"])
def test_loud_fans_with_falling_clocks_lead_with_heat(text):
    assert findings(text)[0].rule_id == "thermal-hw-slowdown"
    assert "facility-cooling-power" not in shown(text)


@pytest.mark.parametrize("text", ["four servers in the same rack all hit thermal slowdown together", "同一排的几台服务器一起降频"])
def test_several_servers_throttling_together_blame_what_they_share(text):
    assert findings(text)[0].rule_id == "facility-cooling-power"


# --- sharded training over PCIe ---

PCIE_SHARDED = [
    ("six L40S cards under FSDP, GPU-Util sits at 100% yet each step takes forever", {"gpus": 6, "interconnect": "pcie", "sharding": "fsdp"}),
    ("8块L20用ZeRO-3训练，利用率高但是速度很慢", {"gpus": 8, "interconnect": "pcie", "sharding": "zero-3"}),
    ("MFU only 9% with tensor parallel 4 on four RTX 6000 Ada", {"gpus": 4, "interconnect": "pcie", "tensor_parallel": 4}),
]


@pytest.mark.parametrize(("text", "setup"), PCIE_SHARDED)
def test_sharding_on_cards_without_nvlink_leads_with_pcie_communication(text, setup):
    ranked = findings(text, **setup)
    assert ranked[0].rule_id == "pcie-topology-slow"
    assert "mfu-below-published" not in shown(text, **setup)  # the figure itself is not a cause beside it


def test_the_fixes_fit_the_stated_sharding():
    full = " ".join(a.en for a in findings(*PCIE_SHARDED[0][:1], **PCIE_SHARDED[0][1])[0].actions)
    assert "SHARD_GRAD_OP" in full and "TP=1" not in full
    stage_two = findings("ZeRO-2 on 4 L40S, util 100% but slow", gpus=4, interconnect="pcie", sharding="zero-2")[0]
    assert not any("SHARD_GRAD_OP" in a.en for a in stage_two.actions)  # already at stage 2: not suggested again
    tensor = " ".join(a.en for a in findings(PCIE_SHARDED[2][0], **PCIE_SHARDED[2][1])[0].actions)
    assert "TP=1" in tensor


def test_a_low_mfu_on_nvlink_cards_is_not_blamed_on_pcie():
    ranked = shown("MFU is only 14% on eight H100 SXM with FSDP", gpus=8, interconnect="nvlink", sharding="fsdp")
    assert "pcie-topology-slow" not in ranked


# --- described without a log: the likeliest cause, not "paste the log" ---

DESCRIBED = [
    ("the ECC error count on one of our H100s keeps climbing, should we RMA it", "ecc-described"),
    ("有一张卡的ECC报错越来越多，需要返修吗", "ecc-described"),
    ("one node of our eight is always slower than the rest", "node-hardware-fault"),
    ("八台机器里总有一台比别的机器慢", "node-hardware-fault"),
]


@pytest.mark.parametrize(("text", "expected"), DESCRIBED)
def test_a_described_symptom_gets_its_likeliest_cause(text, expected):
    ranked = findings(text)
    assert ranked and ranked[0].rule_id == expected
    assert ranked[0].family != "checklist"


def test_ecc_verdict_on_replacing_is_not_a_plain_yes():
    diagnosis = diagnose(TroubleshootRequest(text=DESCRIBED[0][0]), load_rulebook())
    verdict = diagnosis.answers[0].verdict
    assert verdict.en.startswith("Not on a count alone") and "RMA" in verdict.zh


def test_a_slow_node_asks_for_its_clocks_first():
    top = findings(DESCRIBED[2][0])[0]
    assert "clocks_event_reasons" in (top.actions[0].command or "")
