"""Causes ranked by the evidence a report states, and yes/no questions answered from the rule data.

The sentences are our own wording (not the issue's, the brief's or any review's)."""

from __future__ import annotations

import pytest

from knowledge.catalog import CatalogError
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.parsers.symptoms import parse_symptoms
from tools.troubleshoot.rulebook import RuleBook, load_rulebook, read_rulebook
from tools.troubleshoot.stated import StatedSetup


def run(text: str, **setup):
    return diagnose(TroubleshootRequest(text=text, setup=StatedSetup(**setup) if setup else None), load_rulebook())


def ranked(diagnosis) -> list[str]:
    return [finding.rule_id for finding in diagnosis.findings]


def commands(finding) -> str:
    return " ".join(action.command or "" for action in finding.actions)


# --- what the reading supplies -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("card 2 is sitting at 87 C, its neighbours near 61 C", [87.0, 61.0]),
        ("our L40S hits 91 degrees under load", [91.0]),
        ("二号卡 86 度，别的卡 63 度", [86.0, 63.0]),
    ],
)
def test_temperatures_written_without_a_heat_word_are_read(text, expected):
    assert [r.values["temperature_c"] for r in parse_symptoms(text) if r.kind == "temperature"] == expected


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("the job runs on a single 8-GPU server", {"nodes": 1.0}),
        ("单机 8 卡训练", {"nodes": 1.0}),
        ("eight H100 SXM in one chassis", {"interconnect": "nvlink"}),
        ("cards are linked by NVLink", {"interconnect": "nvlink"}),
        ("four A100 without NVLink", {"interconnect": "pcie"}),
    ],
)
def test_setup_facts_are_read_from_the_description(text, fact):
    settings = {}
    for record in parse_symptoms(text):
        if record.kind == "setting":
            settings.update(record.values)
    assert fact.items() <= settings.items()


def test_only_one_node_among_several_is_not_read_as_a_single_node_job():
    assert not [r for r in parse_symptoms("only one node of the four is slow") if "nodes" in r.values]


def test_the_hottest_card_and_the_spread_reach_the_stated_setup():
    diagnosis = run("after an hour gpu6 reads 89 C and the rest 64 C; steps take longer")
    assert diagnosis.stated["temperature_c"] == 89 and diagnosis.stated["temperature_spread_c"] == 25


# --- each evidence kind puts its cause first -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "one GPU of eight shows 87 C while the other seven sit around 62 C and the training slowed down",
        "八张卡里 5 号卡 87 度，其他都在 62 度上下，训练变慢了",
    ],
)
def test_one_card_much_hotter_than_the_rest_leads_with_that_card(text):
    diagnosis = run(text)
    top = diagnosis.findings[0]
    assert top.rule_id == "thermal-one-hot-card"
    assert top.stated == {"temperature_spread_c": 25.0}
    assert "serial" in commands(top)  # find which physical card it is


def test_even_temperatures_do_not_blame_one_card():
    diagnosis = run("all eight cards read 88 C, 89 C and 87 C and clocks drop")
    assert diagnosis.findings[0].rule_id == "thermal-hw-slowdown"
    assert "thermal-one-hot-card" not in ranked(diagnosis)[:2]


@pytest.mark.parametrize(
    "log",
    [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.63 GiB "
        "of which 900.00 MiB is free. Of the allocated memory 15.2 GiB is allocated by PyTorch, and 6.1 GiB is reserved "
        "by PyTorch but unallocated.",
        "训练时爆显存，看 memory_summary 已预留未分配的显存有 6 GiB 多",
    ],
)
def test_reserved_but_unallocated_memory_leads_with_fragmentation(log):
    diagnosis = run(log)
    assert diagnosis.findings[0].rule_id == "oom-fragmentation"
    assert "expandable_segments" in commands(diagnosis.findings[0])


@pytest.mark.parametrize(
    "text",
    [
        "on one DGX node with NVLink the allreduce hangs and NCCL times out after 10 minutes",
        "单机 8 卡 NVLink，跑一会儿 allreduce 卡住，NCCL 超时",
    ],
)
def test_a_hang_on_one_nvlink_node_does_not_blame_the_network_between_nodes(text):
    diagnosis = run(text)
    assert diagnosis.findings[0].rule_id == "nccl-watchdog-timeout"
    scores = {finding.rule_id: finding.score for finding in diagnosis.findings}
    for network_cause in ("nccl-wrong-interface", "nccl-connect-failed", "nccl-ib-not-found"):
        assert scores.get(network_cause, 0) <= 0.25 * scores["nccl-watchdog-timeout"]


def test_the_same_hang_across_nodes_still_puts_the_network_first():
    diagnosis = run("the allreduce hangs and NCCL times out", nodes=3)
    assert diagnosis.findings[0].rule_id == "nccl-wrong-interface"


@pytest.mark.parametrize(
    "text",
    [
        "single node, 8 GPUs, GPU util hovers at 30-40% on a 7B run",
        "单机 8 卡训练 7B，GPU 利用率只有三四十",
    ],
)
def test_low_utilisation_on_one_node_ranks_the_usual_mfu_killers_above_communication(text):
    diagnosis = run(text)
    order = ranked(diagnosis)
    assert order[0] in ("util-dataloader", "util-small-batch", "util-unfused-kernels")
    assert "util-unfused-kernels" in order[:4]
    if "util-communication" in order:
        assert order.index("util-communication") > order.index("util-dataloader")
    (reading,) = diagnosis.readings  # GPU-Util measures time, not the chip's work
    assert "share of time" in reading.en and "时间占比" in reading.zh


def test_a_stated_micro_batch_of_one_puts_small_kernels_first_and_the_same_run_on_nodes_puts_communication_first():
    assert run("gpu utilisation is about 35%", batch=1, nodes=1).findings[0].rule_id == "util-small-batch"
    assert run("gpu utilisation is about 35%", batch=1, nodes=4).findings[0].rule_id == "util-communication"


# --- steps that do not apply are never suggested -------------------------------------------------------------


@pytest.mark.parametrize("method", ["lora", "qlora"])
def test_an_adapter_job_is_not_told_to_shard_across_gpus(method):
    diagnosis = run("fine-tuning with adapters keeps hitting CUDA out of memory", method=method, gpus=8)
    capacity = next(f for f in diagnosis.findings if f.rule_id == "oom-capacity")
    assert "sharding" not in {action.lever for action in capacity.actions}
    assert ("load_in_4bit" in commands(capacity)) is (method == "lora")


def test_a_full_fine_tune_keeps_the_sharding_step_and_gets_no_adapter_step():
    diagnosis = run("full fine-tune runs out of memory", method="full_finetune", gpus=8)
    capacity = next(f for f in diagnosis.findings if f.rule_id == "oom-capacity")
    assert "sharding" in {action.lever for action in capacity.actions}
    assert "load_in_4bit" not in commands(capacity)


# --- yes/no questions answered from the rule data ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the NCCL watchdog fires mid-epoch, can I just increase the timeout to an hour?",
        "NCCL 超时了，是不是把超时调大就行？",
    ],
)
def test_asking_to_raise_the_timeout_gets_a_no_and_the_step_is_not_listed_again(text):
    diagnosis = run(text)
    (asked,) = diagnosis.answers
    assert asked.id == "raise_timeout"
    assert asked.verdict.en.startswith("No") and asked.verdict.zh.startswith("不建议")
    assert all("timedelta" not in commands(finding) for finding in diagnosis.findings)


def test_the_timeout_step_stays_when_nobody_asked_about_it():
    diagnosis = run("NCCL watchdog timeout during training")
    assert "timedelta" in commands(diagnosis.findings[0])


@pytest.mark.parametrize(
    "text",
    [
        "dmesg shows Xid 79, GPU has fallen off the bus, for the same slot again. Is the GPU bad or the motherboard?",
        "又报 Xid 79 fallen off the bus 了，是卡坏了还是主板的问题？",
    ],
)
def test_card_or_board_gets_the_swap_procedure(text):
    diagnosis = run(text)
    assert diagnosis.findings[0].rule_id == "xid-79"
    (asked,) = diagnosis.answers
    assert asked.id == "card_or_board"
    assert "follows the card" in asked.verdict.en and "跟着卡走" in asked.verdict.zh
    steps = " ".join(step.en for step in asked.procedure)
    assert "serial" in steps and "slot" in steps
    assert "pci.bus_id" in " ".join(step.command or "" for step in asked.procedure)


def test_a_leading_cause_with_its_own_verdict_overrides_the_general_one():
    ecc = run("Xid 48 double bit ECC error on GPU 2, should I RMA it?").answers[0]
    assert ecc.id == "replace_card" and "double-bit" in ecc.verdict.en and "Xid 64" in ecc.verdict.en
    assert ecc.procedure == []  # the cause's own steps (reset, remap check) are the procedure, not the swap test
    general = run("Xid 119 GSP RPC timeout on one card, should I RMA it?").answers[0]
    assert general.verdict.en.startswith("Not yet") and general.procedure and not general.from_cause
    lost = run("Xid 79 GPU has fallen off the bus, should I RMA it?").answers[0]
    assert lost.from_cause and lost.verdict.en.startswith("**Reboot and watch")  # its disposition answers it
    heat = run("gpu 3 at 88 C while the others are at 60 C, should I replace the card?").answers[0]
    assert "cooling" in heat.verdict.en and "散热" in heat.verdict.zh


def test_no_question_no_verdict():
    assert run("Xid 79 GPU has fallen off the bus").answers == []


def test_a_rule_answering_an_unknown_question_is_rejected(tmp_path):
    book = load_rulebook()
    rule = book.rule("xid-79").model_copy(update={"asks": {"buy_more": book.questions[0].verdict}})
    with pytest.raises(ValueError, match="buy_more"):
        RuleBook(rules=[rule], sources={}, questions=book.questions)


def test_a_broken_question_file_names_the_file(tmp_path):
    (tmp_path / "questions").mkdir()
    (tmp_path / "questions" / "yes_no.yaml").write_text("source: here\nquestions: [{id: x}]\n", encoding="utf-8")
    (tmp_path / "oom.yaml").write_text(
        "family: oom\nsource: here\nrules:\n  - {id: a, title: {en: a, zh: a}, weight: 0.5, "
        "patterns: {keywords: {en: [oom]}}, causes: [{en: a, zh: a}], actions: [{en: a, zh: a}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(CatalogError, match="yes/no question 1"):
        read_rulebook(tmp_path)
