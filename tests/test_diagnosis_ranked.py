"""A diagnosis ranked by the evidence given: a fault named in words (an Xid code) outranks causes guessed from a symptom,
by the rule's own named_strength; the catalog's severity still decides between a named code and a pasted log line; the
yes/no asked ("is it hardware?", "is it the driver?", "can I keep training?") is answered from the leading cause's
fault_in / keep_running; a fault that came back gets the repeat's disposition, not first-time steps; evidence quotes the
log, never the user's own sentence.

Wording here is our own (not from the issue, the briefs or a review)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import load_rulebook
from tools.troubleshoot.stated import StatedSetup

CATALOG = json.loads((Path(__file__).parents[1] / "knowledge" / "troubleshooting" / "xid-catalog.json").read_text())

WATCHDOG = (
    "[rank5]:[E ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=40211, "
    "OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600094 milliseconds before timing out."
)


def run(text: str, **setup):
    return diagnose(TroubleshootRequest(text=text, setup=StatedSetup(**setup) if setup else None), load_rulebook())


def order(text: str, **setup) -> list[str]:
    return [finding.rule_id for finding in run(text, **setup).findings]


# --- strength: a named fault outranks a guess ---


@pytest.mark.parametrize("text", [
    WATCHDOG + "\nthe node's kernel log had an Xid 48 a minute before that",
    WATCHDOG + "\n那台机器的 dmesg 里在超时前一分钟有 Xid 48",
])  # fmt: skip
def test_a_named_double_bit_error_leads_over_the_pasted_timeout_it_caused(text):
    ranked = order(text)
    assert ranked[0] == "xid-48" and "nccl-watchdog-timeout" in ranked[1:]


@pytest.mark.parametrize("text", [
    "steps got slower and GPU utilisation hovers around 35-45%; also spotted Xid 48 on GPU 6 this morning",
    "训练变慢，GPU 利用率在 35-45% 之间晃，早上还在 6 号卡上看到 Xid 48",
    "the box runs at 87C and utilisation dropped to 40%, plus one Xid 48 in dmesg",
])  # fmt: skip
def test_a_named_xid_outranks_every_cause_guessed_from_the_symptom(text):
    findings = run(text).findings
    assert findings[0].rule_id == "xid-48"
    assert all(f.score < findings[0].score for f in findings[1:] if f.symptom)


def test_the_catalogs_severity_still_decides_a_benign_xid_does_not_lead_a_pasted_fault():
    """Xid 63 is NVIDIA's IGNORE bucket (a row remap recorded): named beside a pasted watchdog line it is not the lead."""
    ranked = order(WATCHDOG + "\nthere was also an Xid 63 on that node last week")
    assert ranked[0] == "nccl-watchdog-timeout" and "xid-63" in ranked


def test_strength_is_rule_data_every_xid_names_itself_symptom_rules_do_not():
    rules = load_rulebook().rules
    assert all(rule.named_strength == 1.0 for rule in rules if rule.family == "xid")
    assert all(rule.named_strength is None for rule in rules if rule.family in ("utilization", "oom"))


# --- where the fault lies and whether the GPU may keep working: from NVIDIA's buckets ---

DRAIN_NOW = {"RESET_GPU", "RESTART_BM", "RESTART_VM", "CHECK_MECHANICALS", "WORKFLOW_XID_48", "WORKFLOW_NVLINK_ERR"}


@pytest.mark.parametrize("entry", [e for e in CATALOG["entries"] if e["immediate_action"]], ids=lambda e: f"xid-{e['xid']}")
def test_an_xids_disposition_follows_the_catalogs_buckets(entry):
    rule = next((r for r in load_rulebook().rules if r.id == f"xid-{entry['xid']}"), None)
    if rule is None:
        pytest.skip("no rule for this code")
    if entry["immediate_action"] in DRAIN_NOW:
        assert rule.keep_running == "drain"
    if entry["immediate_action"] == "RESTART_APP":
        assert rule.keep_running == "restart"
    if entry["immediate_action"] == "IGNORE":
        assert rule.keep_running == "yes"
    if entry["investigatory_action"] in ("CHECK_APP/CUDA", "WORKFLOW_XID_13", "WORKFLOW_XID_31"):
        assert rule.fault_in == "software"
    if entry["investigatory_action"] in ("INVESTIGATE_SW", "UPDATE_SWFW"):
        assert rule.fault_in == "driver"
    if entry["investigatory_action"] == "CONTACT_SUPPORT":
        assert rule.fault_in in ("hardware", "either")


# --- the yes/no asked, answered first from the leading cause ---


def verdict(text: str, language: str, **setup) -> str:
    answers = run(text, **setup).answers
    assert answers, "the question was not recognised"
    return answers[0].verdict.zh if language == "zh" else answers[0].verdict.en


@pytest.mark.parametrize("text, language, starts", [
    ("Pasted from dmesg: NVRM: Xid (PCI:0000:9a:00): 48, pid=4410, DBE (double bit error) ECC error. Hardware problem?", "en", "**Yes"),
    ("跑着跑着挂了，日志：NVRM: Xid (PCI:0000:9a:00): 48, pid=4410, DBE ECC error，这算硬件问题吗", "zh", "**是硬件问题"),
    ("nvidia-smi just says Failed to initialize NVML: Driver/library version mismatch. Driver issue?", "en", "**Yes"),
    ("升级以后 nvidia-smi 报 Failed to initialize NVML: Driver/library version mismatch，是驱动的问题吗", "zh", "**是驱动"),
    ("our step time doubled and utilization is 30-40%, is this a hardware issue?", "en", "**Probably not the hardware"),
    ("loss went fine but Xid 13 showed up once on GPU 1, can we keep training on that box?", "en", "**Yes, after restarting the job"),
    ("GPU 3 报了 Xid 64，这台机器还能继续训练吗", "zh", "**不能继续"),
])  # fmt: skip
def test_the_yes_no_asked_is_answered_from_the_leading_cause(text, language, starts):
    assert verdict(text, language).startswith(starts)


def test_a_fault_that_came_back_is_a_hardware_case_whatever_its_first_occurrence():
    text = "Xid 31 on gpu 2, is it a hardware problem?"
    assert verdict(text, "en").startswith("**No")  # an MMU fault is the application's first
    text = "Xid 8 on gpu 2 again, is it a hardware problem?"
    assert verdict(text, "en", recurring=True).startswith("**Yes")  # RESTART_APP → CONTACT_SUPPORT: hardware once it recurs


# --- a repeat is past first-time triage ---


@pytest.mark.parametrize("text", [
    "NVRM: Xid (PCI:0000:1b:00): 79, pid=771, GPU has fallen off the bus. Same GPU again, we rebooted it twice already.",
    "NVRM: Xid (PCI:0000:1b:00): 79, pid=771, GPU has fallen off the bus. 同一张卡第三次掉了，已经重启过两次。",
])  # fmt: skip
def test_a_recurring_fault_gets_no_first_time_reboot(text):
    top = run(text, recurring=True).findings[0]
    assert top.rule_id == "xid-79"
    assert not any(action.command == "sudo reboot" for action in top.actions)
    assert "RMA" in top.verdict.en and "RMA" in top.verdict.zh


def test_a_recurring_uncorrectable_ecc_error_escalates_and_a_recurring_software_fault_does_not():
    ecc = run("Volatile Uncorrectable ECC errors: 3 on GPU 4, came back after the reset", recurring=True).findings[0]
    assert ecc.family == "hardware" and "dcgmi diag -r 3" in ecc.verdict.en and "RMA" in ecc.verdict.zh
    mmu = run("NVRM: Xid (PCI:0000:1b:00): 31, pid=9, MMU Fault again", recurring=True).findings[0]
    assert mmu.rule_id == "xid-31" and (mmu.verdict is None or "RMA" not in mmu.verdict.en)


# --- evidence quotes the log, not the user's sentence ---


@pytest.mark.parametrize("text, quoted", [
    ("The run died at 3am. dmesg shows: NVRM: Xid (PCI:0000:3b:00): 48, pid=22817, DBE (double bit error) ECC error detected.",
     "NVRM: Xid (PCI:0000:3b:00): 48, pid=22817, DBE (double bit error) ECC error detected."),
    ("凌晨任务挂了，dmesg 里是 NVRM: Xid (PCI:0000:3b:00): 48, pid=22817, DBE ECC error，要紧吗",
     "NVRM: Xid (PCI:0000:3b:00): 48, pid=22817, DBE ECC error"),
    ("升级驱动后 nvidia-smi 报 Failed to initialize NVML: Driver/library version mismatch，怎么处理",
     "Failed to initialize NVML: Driver/library version mismatch"),
])  # fmt: skip
def test_evidence_quotes_the_log_part_of_the_line(text, quoted):
    top = run(text).findings[0]
    assert top.evidence[0].excerpt == quoted


def test_a_syslog_prefix_is_part_of_the_log_and_stays_quoted():
    line = "Dec  7 03:12:44 gpu-node-07 kernel: [88123.4] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus."
    assert run(line).findings[0].evidence[0].excerpt == line


# --- answers, both languages ---


def test_answers_lead_with_the_yes_or_no(offline_advisor):
    en = offline_advisor.answer(
        "Job crashed overnight; kernel log: NVRM: Xid (PCI:0000:5e:00): 48, pid=3141, DBE (double bit error) ECC error. "
        "Is this a hardware problem?"
    ).answer
    assert en.startswith("**Yes — the evidence points at the hardware: Xid 48")
    assert "The job crashed overnight" not in en and "`NVRM: Xid (PCI:0000:5e:00): 48" in en
    zh = offline_advisor.answer("4 号卡报了 Xid 64，这台服务器还能继续跑训练吗？").answer
    assert zh.startswith("**不能继续——先把这块 GPU 排空")


def test_a_fault_seen_each_time_is_a_repeat_and_the_follow_up_is_answered_once(offline_advisor):
    en = offline_advisor.answer(
        "Our 4-node run dies with NCCL timeouts; each time node 2's dmesg has an Xid 79. Can we keep using node 2?"
    ).answer
    assert en.startswith("**No — drain that GPU") and "RMA" in en.split("\n\n")[1]
    assert "`sudo reboot`" not in en
    zh = offline_advisor.answer("4 机训练老是 NCCL 超时，每次都是 2 号节点 dmesg 里有 Xid 79，2 号节点还能继续用吗？").answer
    assert zh.startswith("**不能继续") and "RMA" in zh.split("\n\n")[1]
