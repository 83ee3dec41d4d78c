"""Answers to problems reported in words: typed throttle reasons, sharded training on cards without NVLink, and
described symptoms, each led by the likeliest cause in the user's language, never by a request for a log.

Wording here is our own (not from the issue, the briefs or any review)."""

from __future__ import annotations

import pytest

from tests.threads import ask

GENERAL_CHECKLIST = ("I can't pin this", "仅凭描述还无法锁定")


def test_typed_reasons_name_the_active_ones_and_never_hedge_on_power(offline_advisor):
    answer = ask(offline_advisor, "GPU 2 of an H100 box: HW Thermal Slowdown Active, SW Thermal Slowdown Active, SW Power Cap Not Active — why slow?").answer
    first = answer.split("\n\n")[0]
    assert first.startswith("**Heat, on this card: nvidia-smi reports HW Thermal Slowdown, SW Thermal Slowdown active")
    assert "power brake" not in first.lower()
    assert "Drain it" in answer and "RMA" in answer


def test_typed_reasons_in_chinese_lead_with_heat_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "有一张H100降频，硬件过热降频：激活，软件功耗上限：未激活，其他卡都正常").answer
    assert answer.startswith("**是这张卡过热：nvidia-smi 显示 HW Thermal Slowdown 处于激活状态")
    assert "SW Power Cap 处于激活" not in answer


def test_full_sharding_on_l40s_leads_with_pcie_and_is_not_called_already_tried(offline_advisor):
    answer = ask(offline_advisor, "FSDP on eight L40S, GPU-Util at 100% but training crawls").answer
    assert answer.startswith("**Most likely cause: GPUs talk over PCIe")
    assert "Already tried" not in answer
    assert "SHARD_GRAD_OP" in answer
    assert "GPUs linked by PCIe only (no NVLink)" in answer  # the catalog's link, stated as a fact used


def test_zero3_on_4090s_in_chinese_leads_with_pcie(offline_advisor):
    answer = ask(offline_advisor, "四张4090上用ZeRO-3训练，利用率高但是特别慢").answer
    assert answer.startswith("**最可能的原因：GPU 之间走 PCIe")
    assert "已经试过" not in answer


def test_a_limit_already_reached_is_still_acknowledged_where_it_holds_back_a_step(offline_advisor):
    answer = ask(offline_advisor, "full fine-tune of a 7B model OOMs on a 24GB card even with batch size 1 and gradient checkpointing").answer
    assert "Already tried: a smaller batch, activation checkpointing" in answer
    assert "Halve the micro-batch" not in answer


DESCRIBED_EN = [
    "CUDA out of memory at step 3000 while fine-tuning a 7B model with LoRA on an A100 80GB",
    "GPU usage hovers around 20-30% and I think the data pipeline is the bottleneck, num_workers is 1",
    "NCCL timeout right after launch on a 3-node job, before any step runs",
    "the ECC error count on one card keeps climbing",
    "fans are loud and the SM clock keeps falling when the job runs",
    "one of our six nodes is always slower than the rest",
    "training throughput dropped by half since last week on the same servers",
    "the dataloader can't keep up, GPUs sit idle between steps, utilisation around 40%",
    "the job hangs with every GPU at 100% util and no output across 2 nodes",
    "our GPUs run at 90C and throttle",
]
DESCRIBED_ZH = [
    "两台机器多机训练很慢，中间只有普通以太网",
    "GPU利用率在二三十%徘徊，感觉是数据读取慢，num_workers是1",
    "三台机器一启动就NCCL超时，一步都没跑",
    "有一张卡的ECC计数一直往上涨",
    "风扇狂转，一跑任务频率就掉下来",
    "六个节点里总有一个节点比别的慢",
    "同样的机器，训练速度比上周慢了一半",
    "数据加载跟不上，GPU利用率只有四十%左右",
    "两台机器训练卡住了，每张卡利用率都是100%，没有任何输出",
    "显卡温度90度，一直降频",
]


@pytest.mark.parametrize("question", DESCRIBED_EN + DESCRIBED_ZH)
def test_a_described_symptom_gets_a_cause_first_not_a_log_request(offline_advisor, question):
    answer = ask(offline_advisor, question).answer
    first = answer.split("\n\n")[0]
    assert not first.startswith(GENERAL_CHECKLIST)
    chinese = any("\u4e00" <= c <= "\u9fff" for c in question)
    assert first.startswith("**最可能的原因：" if chinese else "**Most likely cause: ")
