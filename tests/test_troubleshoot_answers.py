"""Troubleshooting answers to a problem described in words, with no log: ranked causes, facts used, what fits.

Wording here is our own (not from the issue, the golden set or either understanding split)."""

from __future__ import annotations

from tests.threads import ask


def diagnose_call(response):
    (call,) = [call for call in response.tool_calls if call.name == "diagnose"]
    return call


def test_a_utilisation_range_on_several_nodes_puts_communication_first(offline_advisor):
    question = "we fine-tune across 3 nodes and the gpus only reach 25-35% utilization"
    response = ask(offline_advisor, question)
    assert diagnose_call(response).args["setup"]["nodes"] == 3
    answer = response.answer
    assert answer.startswith("**Most likely cause: Multi-GPU communication limits throughput.** Collectives run")
    assert "From your description: GPU utilisation 25–35%" in answer and "nodes: 3" in answer
    assert "all_reduce_perf" in answer and "Evidence (line" not in answer
    assert question not in answer  # the facts are listed, the sentence is not echoed


def test_a_chinese_range_with_few_workers_puts_data_loading_first(offline_advisor):
    answer = ask(offline_advisor, "训练的时候显卡利用率就二三十%，num_workers=1").answer
    assert answer.startswith("**最可能的原因：瓶颈很可能在数据加载。**DataLoader 工作进程太少")
    assert "根据您的描述：GPU 利用率 20–30%" in answer and "DataLoader 工作进程 1 个" in answer
    assert "py-spy top" in answer and "证据（第" not in answer


def test_a_full_fine_tune_that_cannot_fit_says_so_with_the_figure_and_what_fits(offline_advisor):
    response = ask(offline_advisor, "full finetune of an 8b model on one rtx 4090 dies with CUDA out of memory every time")
    answer = response.answer
    memory = [call for call in response.tool_calls if call.name == "estimate_memory"]
    assert memory[0].args["method"] == "full" and memory[0].args["gpu"] == "rtx-4090"
    assert "This cannot fit on one" in answer and "at any batch size" in answer
    assert "144 GB for weights, gradients and optimizer states alone (18 bytes per parameter)" in answer
    assert "QLoRA fine-tuning on the same card" in answer and "ZeRO-3 and activation checkpointing across" in answer
    # halving the batch or checkpointing cannot close a gap made by the model states
    assert "per_device_train_batch_size" not in answer and "gradient_checkpointing_enable" not in answer


def test_a_chinese_oom_that_cannot_fit_names_the_figure_in_chinese(offline_advisor):
    answer = ask(offline_advisor, "8B模型全参微调，单张4090，一跑就爆显存").answer
    assert "无论批大小多少都放不下" in answer and "144 GB" in answer and "每参数 18 字节" in answer
    assert "同一张卡改用QLoRA 微调" in answer


def test_an_oom_that_fits_by_the_estimate_looks_elsewhere(offline_advisor):
    answer = ask(offline_advisor, "qlora on an 8b model with one a100 80gb still runs out of memory sometimes").answer
    assert "so the setup as stated fits" in answer and "cannot fit" not in answer


def test_a_hang_across_nodes_points_at_the_network_first(offline_advisor):
    answer = ask(offline_advisor, "on 2 nodes the run freezes in allreduce and the NCCL watchdog times out").answer
    assert answer.startswith("**Most likely cause: NCCL picked a local-only network interface.**")
    assert "NCCL_SOCKET_IFNAME" in answer and "Ranked here because of: nodes: 2." in answer


def test_described_overheating_in_chinese_starts_with_the_throttle_reasons(offline_advisor):
    answer = ask(offline_advisor, "服务器里的卡温度很高，跑着跑着就降频").answer
    assert "硬件过热降频" in answer.split("\n")[0]
    assert "nvidia-smi -q -d PERFORMANCE" in answer and "根据您的描述" in answer


def test_a_pasted_log_is_still_quoted_with_its_line(offline_advisor):
    log = "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 1 has a total capacity of 79.15 GiB"
    answer = ask(offline_advisor, log).answer
    assert "Evidence (line 1):" in answer and "From your description" not in answer


def _blocks(answer: str) -> list[str]:
    return [block.strip() for block in answer.split("\n\n") if block.strip()]


def test_a_timeout_question_is_answered_no_first_and_the_stopgap_is_not_offered(offline_advisor):
    answer = ask(offline_advisor, "our one 8-GPU NVLink server stalls in allreduce until the NCCL watchdog fires; is a bigger timeout the fix?").answer
    assert answer.startswith("No — a longer timeout only waits longer")
    assert _blocks(answer)[1].startswith("**Most likely cause: NCCL collective timed out (watchdog).**")
    assert "timedelta" not in answer  # the verdict rejects the stopgap, so no step offers it
    assert "NCCL_SOCKET_IFNAME" not in answer  # one node: the network between nodes is not ranked beside it
    assert len(_blocks(answer)) == len(set(_blocks(answer)))


def test_a_chinese_card_or_board_question_gets_the_verdict_and_the_swap_test_once(offline_advisor):
    answer = ask(offline_advisor, "这台机器 dmesg 里又出现 Xid 79 fallen off the bus，到底是显卡坏了还是主板？要不要换卡？").answer
    first, second = _blocks(answer)[:2]
    # "replace it?" gets the disposition of a Xid 79 that came back (又出现: Ask.recurring, rule recurring_verdict),
    # "card or board?" the swap test's verdict
    assert first.startswith("**这张卡下线并申请 RMA") and second.startswith("光看报错分不出来")
    assert answer.count("**如何区分是卡的问题还是机器的问题**") == 1  # two questions, one shared procedure
    assert "pci.bus_id" in answer and "跟着卡走" in answer
    assert len(_blocks(answer)) == len(set(_blocks(answer)))


def test_one_hot_card_in_chinese_leads_with_that_card_and_states_the_readings(offline_advisor):
    answer = ask(offline_advisor, "8 卡服务器里 3 号卡 89 度，其余 63 度左右，最近训练明显变慢").answer
    assert answer.startswith("**最可能的原因：有一张卡比其他卡热得多并在降频")
    assert "最热的卡比最凉的高 26 °C" in answer
    assert len(_blocks(answer)) == len(set(_blocks(answer)))


def test_low_utilisation_on_one_node_explains_gpu_util_and_skips_the_pulled_batch_lever(offline_advisor):
    answer = ask(offline_advisor, "single server with 8 GPUs, micro-batch 1, and GPU-Util sits around 30-40%").answer
    blocks = _blocks(answer)
    assert blocks[0].startswith("**Most likely cause: Too little work per step")
    # what the user already did is said right after the lead, then what the figure measures
    assert blocks[1].startswith("Already tried: a smaller batch")
    assert blocks[2].startswith("nvidia-smi's GPU-Util is the share of time")
    assert "per_device_train_batch_size" not in answer
    assert len(blocks) == len(set(blocks))


def test_an_adapter_oom_that_fits_leads_with_what_changed_and_never_shards(offline_advisor):
    answer = ask(offline_advisor, "lora on a 13b model across 8 a100 80gb still hits cuda oom now and then, micro-batch 1").answer
    lead = _blocks(answer)[0]
    assert "16 bytes per parameter" not in lead and "batch size or sequence length grew" in lead
    assert "ds_zero3" not in answer and "load_in_4bit" in answer
    assert "per_device_train_batch_size" not in answer  # micro-batch 1 has nothing left to halve
