"""Troubleshooting ranks the cause the evidence's own figures show: an OOM whose message says the live tensors filled
the card is a capacity problem, not fragmentation; a reason nvidia-smi reads as not active is not ranked from a word;
SW Power Cap at the default limit and an idle reading are said to be normal first; "is the card broken?" on an
application Xid is answered from where that fault lies, not with a card-swap test. Wording here is our own."""

from __future__ import annotations

import pytest

from tests.threads import ask
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import load_rulebook


def ranked(text):
    return [(f.rule_id, f.score) for f in diagnose(TroubleshootRequest(text=text), load_rulebook()).findings]


def ids(text):
    return [rule_id for rule_id, _ in ranked(text)]


OLD_FORMAT_FULL = ("RuntimeError: CUDA out of memory. Tried to allocate 40.00 MiB (GPU 0; 15.77 GiB total capacity; "
                   "14.60 GiB already allocated; 12.00 MiB free; 14.95 GiB reserved in total by PyTorch)")
NEW_FORMAT_FULL = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has a total capacity of "
                   "39.39 GiB of which 50.00 MiB is free. Including non-PyTorch memory, this process has 39.30 GiB memory in use. "
                   "Of the allocated memory 37.90 GiB is allocated by PyTorch, and 900.00 MiB is reserved by PyTorch but "
                   "unallocated. If reserved but unallocated memory is large try setting "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
NEW_FORMAT_FRAGMENTED = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of "
                         "39.39 GiB of which 1.10 GiB is free. Including non-PyTorch memory, this process has 38.20 GiB memory in "
                         "use. Of the allocated memory 26.00 GiB is allocated by PyTorch, and 11.40 GiB is reserved by PyTorch "
                         "but unallocated.")


@pytest.mark.parametrize("log", [OLD_FORMAT_FULL, NEW_FORMAT_FULL])
def test_a_small_cache_beside_full_tensors_is_capacity_not_fragmentation(log):
    order = ids(log)
    assert order[0] == "oom-capacity"
    assert order.index("oom-fragmentation") > 0


def test_a_cache_large_against_the_request_and_the_tensors_is_fragmentation():
    assert ids(NEW_FORMAT_FRAGMENTED)[0] == "oom-fragmentation"


def test_the_word_fragmentation_does_not_outrank_the_messages_own_figures():
    order = ids("we think it is memory fragmentation?\n" + NEW_FORMAT_FULL)
    assert order[0] == "oom-capacity"


REASONS = """    Clocks Event Reasons
        Idle                              : {idle}
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : {cap}
        HW Slowdown                       : Not Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Not Active
        SW Thermal Slowdown               : Not Active
    Power Readings
        Power Draw                        : 396.20 W
        Current Power Limit               : {limit} W
        Default Power Limit               : 400.00 W
"""


def reasons(idle="Not Active", cap="Active", limit="400.00"):
    return REASONS.format(idle=idle, cap=cap, limit=limit)


def test_power_cap_at_the_default_limit_leads_as_the_normal_state():
    findings = diagnose(TroubleshootRequest(text="Our A100s are throttling under load:\n" + reasons()), load_rulebook()).findings
    assert findings[0].rule_id == "sw-power-cap"
    assert findings[0].verdict is not None and "expected" in findings[0].verdict.en
    # the reasons read Not Active: the thermal and brake causes are not ranked beside it from the word "throttling"
    top = findings[0].score
    shown = [f.rule_id for f in findings if f.score >= 0.25 * top]
    assert not {"thermal-hw-slowdown", "thermal-power-brake", "thermal-sw-slowdown", "power-cap-reduced"} & set(shown)


def test_power_cap_below_the_default_limit_is_the_lowered_limit():
    assert ids("clocks drop during training\n" + reasons(limit="300.00"))[0] == "power-cap-reduced"


def test_a_rule_figure_on_a_field_its_parser_does_not_read_is_refused():
    source = load_rulebook().rule("sw-power-cap").model_dump(mode="json", exclude_none=True)
    source["figures"] = [{"when": ["no_such_field == 1"], "weight": 0.5}]
    with pytest.raises(ValueError, match="no_such_field"):
        type(load_rulebook().rule("sw-power-cap")).model_validate(source)


XID_APP = "NVRM: Xid (PCI:0000:41:00): 13, pid=777, name=python3, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 1): Out Of Range Address"


@pytest.mark.parametrize("question", ["Should we RMA this GPU?", "is the gpu broken?"])
def test_an_application_xid_is_not_answered_with_a_card_swap(question):
    result = diagnose(TroubleshootRequest(text=f"{XID_APP}\n{question}"), load_rulebook())
    assert result.findings[0].rule_id == "xid-13"
    answer = result.answers[0]
    assert answer.verdict.en.startswith("**No") and not answer.procedure


def test_a_card_fault_xid_is_not_cleared_of_the_card():
    text = "NVRM: Xid (PCI:0000:41:00): 79, pid=0, GPU has fallen off the bus.\nis the gpu broken?"
    result = diagnose(TroubleshootRequest(text=text), load_rulebook())
    assert result.answers and not result.answers[0].verdict.en.startswith("**No")


# --- the answers, both languages ------------------------------------------------------------------------------


def test_power_cap_answer_says_expected_first(offline_advisor):
    answer = ask(offline_advisor, "My GPUs seem throttled during training. nvidia-smi -q:\n" + reasons()).answer
    first = answer.strip().splitlines()[0]
    assert "expected" in first and "400" in first


def test_power_cap_answer_says_expected_first_zh(offline_advisor):
    answer = ask(offline_advisor, "训练时感觉 GPU 在降频，nvidia-smi -q 输出如下：\n" + reasons()).answer
    first = answer.strip().splitlines()[0]
    assert "正常" in first and "400" in first


def test_idle_reading_is_said_to_be_normal_first(offline_advisor):
    answer = ask(offline_advisor, "Why are my clocks so low? nvidia-smi -q:\n" + reasons(idle="Active", cap="Not Active")).answer
    assert "expected" in answer.strip().splitlines()[0]


def test_oom_answer_leads_with_capacity_zh(offline_advisor):
    answer = ask(offline_advisor, "把 batch 调大以后就报错了：\n" + NEW_FORMAT_FULL).answer
    first = answer.strip().splitlines()[0]
    assert "显存不足" in first and "碎片" not in first


def test_application_xid_rma_question_zh(offline_advisor):
    answer = ask(offline_advisor, f"任务崩了，dmesg 里是：\n{XID_APP}\n要不要返修这块卡？").answer
    first = answer.strip().splitlines()[0]
    assert first.startswith("**不用") or first.startswith("不用")
    assert "换位测试" not in answer
