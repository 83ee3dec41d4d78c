"""Troubleshooting answers from a description, end to end: a silent hang, a measured MFU, an OOM on sharded GPUs,
levers already pulled, and a thread whose later message brings new evidence.

Wording here is our own (not from the issue, the briefs or either understanding split)."""

from __future__ import annotations

import pytest

from tests.threads import ask


def memory_calls(response):
    return [call.args for call in response.tool_calls if call.name == "estimate_memory"]


def test_a_silent_hang_gets_the_hang_toolkit_not_a_bandwidth_answer(offline_advisor):
    answer = ask(offline_advisor, "3 nodes, 24 gpus: the run hasn't logged a step in an hour, nvidia-smi says 100% on every card, no error at all").answer
    assert answer.startswith("**Most likely cause: A silent hang")
    assert "py-spy dump" in answer and "TORCH_NCCL_ASYNC_ERROR_HANDLING=1" in answer
    assert "Multi-GPU communication limits throughput" not in answer


def test_a_silent_hang_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "三台机器24张卡训练，一个小时没有进展了，每张卡利用率都显示100%，也没有报错").answer
    assert answer.startswith("**最可能的原因：静默卡死")
    assert "py-spy dump" in answer and "空转" in answer and "多卡通信限制了吞吐" not in answer


def test_a_low_mfu_is_judged_first_with_the_published_range(offline_advisor):
    answer = ask(offline_advisor, "our dense 65b pretraining on 2048 h100 runs at 27% mfu, should we worry?").answer
    assert answer.startswith("**27% MFU on 2048× NVIDIA H100 SXM is below what well-run jobs reach")  # judged once, for its scale
    assert "exposed" in answer and "stragglers" in answer.lower()  # where the time goes, and how to look


def test_a_low_mfu_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "2048张H100预训练稠密65B，MFU才27%，算不算低").answer
    assert answer.startswith("**2048 张 NVIDIA H100 SXM 上 MFU 27%，低于调得好的作业") and "是的，27% 的 MFU 偏低" not in answer


def test_an_oom_on_sharded_gpus_is_sized_as_it_runs_and_keeps_the_method(offline_advisor):
    response = ask(offline_advisor, "13b full finetune, FSDP over 8 a100 80gb, out of memory on the first step even at batch 1")
    (first, *_) = memory_calls(response)
    assert first["method"] == "full" and first["num_gpus"] == 8 and first["zero_stage"] == 3
    answer = response.answer
    assert "cannot fit on one" not in answer and "sharding across 8 cards" in answer and "so the setup as stated fits" in answer


def test_an_oom_on_sharded_gpus_in_chinese(offline_advisor):
    response = ask(offline_advisor, "8张A100 80G用FSDP全参微调13B，batch=1也是第一步就爆显存")
    assert memory_calls(response)[0]["num_gpus"] == 8
    assert "切分到 8 张卡" in response.answer and "无论批大小多少都放不下" not in response.answer


def test_a_sharded_run_that_cannot_fit_offers_more_cards_first_and_no_serving_causes(offline_advisor):
    answer = ask(offline_advisor, "70b full fine tune with zero-3 across 8 a100 40gb dies with oom immediately").answer
    assert "cannot fit on 8 ×" in answer and "Keep the full fine-tuning with ZeRO-3 and activation checkpointing across" in answer
    assert "serving engine" not in answer  # a training job is not an engine starting up


def test_a_reboot_and_a_driver_update_are_acknowledged_before_the_steps(offline_advisor):
    answer = ask(offline_advisor, "lora on a 7b with a single 4090, gpu util hovers at 35-45%, rebooted already and updated the driver").answer
    tried = answer.index("Already tried: a reboot, a driver update")
    assert tried < answer.index("nvidia-smi's GPU-Util") and tried < answer.index("**1.")


def test_a_reboot_and_a_driver_update_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "单卡4090做7B的LoRA，利用率只有三四十%，重启过机器，也更新了驱动").answer
    assert "已经试过：重启机器、更新驱动" in answer


def test_a_follow_up_with_the_transport_line_opens_with_what_it_means(offline_advisor):
    first = "two servers of 8 h100 each, training throughput is about half of what we planned"
    follow = "with NCCL_DEBUG=INFO the log prints NET/Socket : Using [0]ens3"
    before = ask(offline_advisor, first).answer
    after = ask(offline_advisor, follow, first).answer
    assert after.startswith("**New finding — NCCL sends inter-node traffic over TCP sockets") and "NCCL_IB_HCA" in after
    assert after != before and not after.startswith(before[:80])


def test_a_follow_up_with_the_transport_line_in_chinese(offline_advisor):
    first = "两台8卡H100一起训练，吞吐只有计划的一半左右"
    after = ask(offline_advisor, "打开NCCL_DEBUG=INFO以后，日志打印 NET/Socket : Using [0]ens3", first).answer
    assert after.startswith("**新发现——NCCL 跨节点流量走的是 TCP 套接字") and "ibv_devinfo" in after


def test_a_follow_up_stack_dump_names_the_diverged_rank(offline_advisor):
    first = "after epoch 1 the job on 4 nodes hangs; rank 6 got a shorter shard than the others"
    after = ask(offline_advisor, "py-spy dump: rank 6 sits in the eval loop, every other rank is inside allreduce", first).answer
    assert after.startswith("**New finding — One rank runs a different number of steps")


# --- first checks from a description, end to end (rules in nccl.yaml, hardware.yaml, thermal.yaml) ---


def test_poor_scaling_across_nodes_is_called_abnormal_with_its_first_check(offline_advisor):
    answer = ask(offline_advisor, "Moving the training run from 1 node to 4 nodes (8 GPUs each) made it only 1.4x faster. Expected?").answer
    assert answer.startswith("**Not normal: 4 nodes giving 1.4× is 35% of linear")
    assert "close to 4×" in answer and "NET/Socket" in answer and "all_reduce_perf" in answer and "HYBRID_SHARD" in answer


def test_poor_scaling_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "4台8卡H100一起训练，只比单机快了1.4倍，这正常吗").answer
    assert answer.startswith("**不正常：4 台机器只快了 1.4 倍")
    assert "NCCL_DEBUG=INFO" in answer and "nccl-tests" in answer


def test_throttling_on_a_passive_card_points_at_the_chassis(offline_advisor):
    answer = ask(offline_advisor, "Our L40S box starts throttling half an hour into every training run").answer
    assert answer.startswith("**Most likely cause: A passively cooled card depends on the server's airflow")
    assert "BMC fan policy" in answer and "NVIDIA L40S;" not in answer  # the catalog's facts are not the user's description


def test_throttling_on_a_passive_card_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "L40S服务器每次训练半小时后就降频").answer
    assert "被动散热" in answer.split("\n")[0] and "BMC 风扇策略" in answer
