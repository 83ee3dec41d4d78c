"""Problem threads that gather evidence (#35 item 4, #36 item 4): a fact said in a later message in words (the fault
always on one machine, a run that goes bad only hours in, a timeout already raised, no RDMA between nodes, a
micro-batch already at 1) re-ranks the causes, the reply opens with what the fact means, and a lever the user already
pulled is never suggested again. Every conversation here is our own wording."""

from __future__ import annotations

import pytest

from advisor.contract import ChatTurn
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import load_rulebook


def thread(advisor, *messages):
    """Each message answered after the ones before it; every answer, in order."""
    history, answers = [], []
    for text in messages:
        response = advisor.answer(text, history)
        answers.append(response)
        history += [ChatTurn(role="user", content=text), ChatTurn(role="assistant", content=response.answer)]
    return answers


def diagnosis_of(response) -> dict:
    return next(call.result for call in response.tool_calls if call.name == "diagnose")


def top_cause(response) -> str:
    return diagnosis_of(response)["findings"][0]["rule_id"]


def opening(response) -> str:
    return response.summary.strip().split("\n")[0]


@pytest.mark.parametrize(
    ("messages", "first_top", "then_top", "meaning_words"),
    [
        (["our 3-server training run freezes inside an NCCL all-reduce", "and it is node 3 that drops out every single time"],
         "hang-silent", "node-hardware-fault", "same node"),
        (["三台机器一起训练，经常卡在NCCL的allreduce不动", "而且每次出问题的都是2号节点"],
         "hang-silent", "node-hardware-fault", "同一个节点"),
        (["cross-node training is crawling, the all-reduce is slow", "we have no infiniband, the boxes just talk over ethernet"],
         "util-communication", "util-communication", "TCP"),
    ],
)
def test_a_later_fact_re_ranks_and_is_said_first(offline_advisor, messages, first_top, then_top, meaning_words):
    first, then = thread(offline_advisor, *messages)
    assert top_cause(first) == first_top
    assert top_cause(then) == then_top
    assert meaning_words in opening(then)  # what the new fact means comes before anything else
    assert opening(then) != opening(first)


@pytest.mark.parametrize(
    ("messages", "pulled", "never"),
    [
        (["multi-node job stalls in all_reduce and then the watchdog fires", "it's always the same machine",
          "we already bumped the timeout and set NCCL_IB_DISABLE=0"],
         {"timeout", "ib_transport"}, ["timeout=datetime.timedelta", "NCCL_IB_DISABLE|NCCL_NET"]),
        (["多机训练卡在allreduce，最后报NCCL超时", "总是同一台机器", "超时已经调大了，NCCL_IB_DISABLE也设成0了"],
         {"timeout", "ib_transport"}, ["timeout=datetime.timedelta", "NCCL_IB_DISABLE|NCCL_NET"]),
    ],
)
def test_levers_already_pulled_are_never_suggested(offline_advisor, messages, pulled, never):
    *_, last = thread(offline_advisor, *messages)
    assert pulled <= set(diagnosis_of(last)["tried"])
    assert top_cause(last) == "node-hardware-fault"  # the earlier fact still stands after the third message
    for command in never:
        assert command not in last.answer


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        (["GPU util hovers between 25 and 35% fine-tuning a 7B model on 4 A100", "micro batch is at 1 already"], "micro-batch 1"),
        (["4张A100微调7B模型，GPU利用率只有三十左右", "batch已经是1了"], "micro-batch 为 1"),
    ],
)
def test_a_batch_already_at_one_moves_small_kernels_up_and_is_not_halved(offline_advisor, messages, said):
    first, then = thread(offline_advisor, *messages)
    assert top_cause(first) != "util-small-batch"
    assert top_cause(then) == "util-small-batch"
    assert said in opening(then)
    assert "--per_device_train_batch_size 4 --gradient_accumulation_steps 8" not in then.answer


def test_a_late_onset_points_at_what_builds_up_both_languages():
    rules = load_rulebook()
    for text in ("the run is fine at first but slows down after about 3 hours", "训练前两个小时正常，三个小时以后就变慢了"):
        findings = diagnose(TroubleshootRequest(text=text), rules).findings
        assert findings[0].rule_id == "slow-after-hours", [(f.rule_id, f.score) for f in findings]
    # an OOM that arrives hours in is the allocator carved up, not a job too big from the start
    late = diagnose(TroubleshootRequest(text="LoRA run goes out of memory after about 5 hours of training"), rules).findings
    early = diagnose(TroubleshootRequest(text="LoRA run goes out of memory on the first step"), rules).findings
    assert late[0].score < early[0].score or late[0].rule_id == "oom-fragmentation"
    assert any(f.rule_id == "oom-fragmentation" for f in late)


def test_a_hang_after_hours_is_not_a_start_up_network_fault():
    rules = load_rulebook()
    late = diagnose(TroubleshootRequest(text="on 4 nodes the job hangs in allreduce, but only hours into the run"), rules)
    start = diagnose(TroubleshootRequest(text="on 4 nodes the job hangs in allreduce"), rules)
    score = {f.rule_id: f.score for f in late.findings}
    assert late.findings[0].rule_id == "nccl-watchdog-timeout"
    assert score.get("nccl-wrong-interface", 0) < {f.rule_id: f.score for f in start.findings}["nccl-wrong-interface"]


def test_eight_gpus_with_no_node_count_are_read_as_one_server_and_said():
    result = diagnose(TroubleshootRequest(text="GPU util is 30-40%", setup={"gpus": 8}), load_rulebook())
    assert result.stated["nodes"] == 1 and result.assumed == ["nodes"]
    assert any("one server" in note.en and "一台服务器" in note.zh for note in result.notes)
    stated = diagnose(TroubleshootRequest(text="GPU util is 30-40% on a 2-node job", setup={"gpus": 8}), load_rulebook())
    assert stated.stated["nodes"] == 2 and not stated.assumed
