"""Troubleshooting answers that lead with a verdict: a measured bandwidth judged against the links, a serving OOM
answered as one, and a checklist (never a bare request for logs) when no cause can be named. Our own wording."""

from __future__ import annotations

from advisor.markdown import fold


def called(response, name):
    return [call for call in response.tool_calls if call.name == name]


def first_block(response):
    return response.summary.split("\n\n")[0]


def test_a_low_busbw_between_nodes_is_called_low_with_the_factor_and_the_suspect(offline_advisor):
    response = offline_advisor.answer("nccl-tests between our 2 nodes report busbw of 9 GB/s; each node has 4x200G NICs. ok?")
    (check,) = called(response, "check_measured")
    assert check.args["nics_per_node"] == 4 and check.args["nic_gbps"] == 200 and check.args["nodes"] == 2
    lead = first_block(response)
    assert lead.startswith("**No — 9 GB/s is about 9.4× below the 80–90 GB/s that 4 × 200 Gb/s NICs per node should give.**")
    assert "First suspect: NCCL sends inter-node traffic over TCP sockets, not RDMA." in lead
    assert "4 × 200 Gb/s ÷ 8 × 0.8–0.9 = 80–90 GB/s" in response.answer  # the formula behind the figure
    assert "Using network Socket" in response.answer and "nvidia-peermem" in response.answer


def test_the_same_question_in_chinese_gets_the_verdict_in_chinese(offline_advisor):
    response = offline_advisor.answer("两台服务器测 all_reduce，busbw 只有 21 GB/s，每台 4 张 200G 网卡，这正常吗")
    lead = first_block(response)
    assert lead.startswith("**不正常——21 GB/s 比每台 4 张 200 Gb/s 网卡应有的 80–90 GB/s 低了约 4 倍。**")
    assert "只走了一张网卡" in lead and "NCCL_IB_HCA" in response.answer


def test_a_healthy_busbw_is_called_normal_and_sends_the_reader_elsewhere(offline_advisor):
    response = offline_advisor.answer("our nccl all_reduce test across 4 nodes shows 370 GB/s busbw, 8x400G NICs per node. normal?")
    assert first_block(response).startswith("**Yes, that is normal — 370 GB/s reaches the 320–360 GB/s")
    assert "profile a few steps" in response.answer and "nvidia-peermem" not in response.answer


def test_a_multi_node_figure_without_nics_asks_for_them_in_the_lead(offline_advisor):
    lead = first_block(offline_advisor.answer("all_reduce_perf on 3 nodes only reaches busbw 15 GB/s, why so low?"))
    assert lead.startswith("**15 GB/s cannot be judged yet:**") and "how many, and at what speed" in lead


def test_a_vllm_start_up_oom_gets_engine_settings_not_training_ones(offline_advisor):
    for question in ("serving qwen2.5 72b with vllm on two a100 80gb: out of memory before the server is up",
                     "vllm 启动 72B 模型时直接 CUDA out of memory，两张 A100"):
        response = offline_advisor.answer(question)
        assert "--max-model-len" in response.answer and "--enforce-eager" in response.answer
        assert "per_device_train_batch_size" not in response.answer and "ds_zero3" not in response.answer
    assert first_block(response).startswith("**最可能的原因：推理引擎在启动阶段显存不足。**")


def test_busy_pcie_gpus_lead_with_the_link_and_explain_what_busy_means(offline_advisor):
    response = offline_advisor.answer("GPU-Util says 100% on our eight PCIe A100s yet FSDP training crawls")
    assert first_block(response).startswith("**Most likely cause: GPUs talk over PCIe")
    assert "nvidia-smi topo -m" in response.answer and "kernel was resident" in response.answer


def test_a_nan_loss_gets_a_checklist_and_the_request_for_output_comes_last(offline_advisor):
    for question, lead, last in (
        ("around step 3000 our loss suddenly goes to nan", "**I can't pin this to one known failure", "learning-rate schedule."),
        ("跑到三千步左右 loss 变成 nan", "**仅凭描述还无法锁定到某个已知故障", "学习率计划发给我。"),
    ):
        response = offline_advisor.answer(question)
        assert first_block(response).startswith(lead)
        answer = response.answer
        assert "set_detect_anomaly" in answer and last in answer
        assert answer.index(last) > answer.index("dcgmi diag -r 3")  # the request for output follows every check
        assert "Paste the full error" not in response.answer


def test_nothing_recognisable_still_gets_a_triage_before_the_request_for_logs(offline_advisor):
    response = offline_advisor.answer("our gpu box is acting strange since monday, can you troubleshoot it")
    answer = response.answer
    assert "sudo dmesg -T | grep -i -E 'xid|nvrm'" in answer and "torch.cuda.nccl.version()" in answer
    assert answer.index("nvidia-smi dmon") < answer.index("Then send me")


def test_no_troubleshooting_answer_opens_with_a_title_alone(offline_advisor):
    for question in ("NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with status=12 opcode=0 len=0 vendor err 129",
                     "显卡利用率只有三十多，单机 8 卡"):
        shown, _ = fold(offline_advisor.answer(question).answer)
        first = shown.split("\n\n")[0]
        assert "\n" not in first and not first.endswith("**"), first
