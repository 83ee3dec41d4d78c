"""Neighbouring-question misses of issue #36 and troubleshooting from a description (#35), each fixed at its cause:

- a how-to question about a platform and a model gets the platform's card, then the model's estimate (route platform_how_to);
- the network between servers (InfiniBand, RoCE, Ethernet) is a subject of its own, answered by the card on fabrics;
- a full fine-tune said in other words ("完整微调", "all the weights") is a full fine-tune, not LoRA (entities.yaml);
- a reboot already done is a step taken, and a suspected cause ("could it be thermal?") gets a yes/no judged against
  the symptoms described (troubleshooting questions, decided_by: suspect);
- memory seen in use ("17 GB used", "占用了20GB") is not a card's capacity (pattern_words observed_*).

Wording is our own, in both languages."""

from __future__ import annotations

import pytest

from advisor.contract import ChatTurn
from advisor.nlu.reader import shared_understanding
from knowledge.concepts import load_concepts
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.rulebook import load_rulebook


@pytest.fixture(scope="module")
def understanding():
    return shared_understanding()


def _cards_cited(response) -> list[str]:
    return [s.doc_id.removeprefix("concept-").split(":", 1)[0] for s in response.sources if s.doc_id.startswith("concept-")]


def _first_paragraph(response) -> str:
    return response.answer.split("\n\n", 1)[0]


# 1. how to do it on a platform, with a model named: the platform's card, then the model's figures
@pytest.mark.parametrize(
    "message",
    ["What's the best way to deploy Qwen2.5-32B on Huawei 910B cards for inference?", "想在昇腾910B上部署Qwen2.5-32B推理，具体怎么做？"],
)
def test_a_how_to_on_a_platform_gets_its_card_then_the_model(offline_advisor, message):
    response = offline_advisor.answer(message, [])
    assert "ascend-vllm-ascend" in _cards_cited(response)
    card = load_concepts().card("ascend-vllm-ascend")
    assert _first_paragraph(response).startswith(card.answer.pick(response.language)[:30])
    assert "Qwen2.5-32B" in response.answer.split("\n\n", 1)[1]  # the model's own calculation follows the card
    assert "compare_gpus" not in [call.name for call in response.tool_calls]


def test_whether_it_can_stays_a_judgement_without_a_model(offline_advisor):
    response = offline_advisor.answer("Can Ascend 910B cards run vLLM at all?", [])
    assert "ascend-vllm-ascend" in _cards_cited(response)


# 2. the fabric between servers is a subject: its card answers, not the card of the GPU named beside it
@pytest.mark.parametrize(
    ("message", "verdict"),
    [("For B200 training nodes, should the network be InfiniBand or RoCE?", "InfiniBand is the safer default"),
     ("H200训练集群的机间网络，选InfiniBand还是RoCE？", "InfiniBand 是更稳妥的默认选择")],
)
def test_infiniband_or_roce_is_answered_by_the_fabric_card(offline_advisor, message, verdict):
    response = offline_advisor.answer(message, [])
    assert _cards_cited(response)[:1] == ["infiniband-vs-roce-vs-ethernet"]
    assert verdict in _first_paragraph(response)[:120]


def test_the_fabric_subject_is_read_in_both_languages():
    from advisor.nlu.subjects import subjects_of
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    assert "fabric" in subjects_of("is RoCE good enough for 64 GPUs?", catalog).get("topic", ())
    assert "fabric" in subjects_of("多机训练用以太网行不行", catalog).get("topic", ())
    assert "fabric" not in subjects_of("what is the H100's memory bandwidth?", catalog).get("topic", ())


# 3. a full fine-tune in other words
@pytest.mark.parametrize(
    "message",
    ["How much memory to fine-tune all the weights of Mistral 7B?", "对Llama 3 8B做完整微调要多少显存？", "想把Qwen2.5-14B的全部参数都训练一遍，显存够吗"],
)
def test_full_fine_tune_in_other_words_is_not_lora(understanding, message):
    assert understanding.read(message).frame.all("method") == ["full_finetune"]


def test_a_complete_fine_tune_is_sized_as_full(offline_advisor):
    answer = offline_advisor.answer("我们想对Qwen2.5-7B做完整微调，需要几张H100？", []).answer
    first = answer.split("\n\n", 1)[0]
    assert "LoRA" not in first and "全参" in first


# 4. a reboot already done; a suspected cause judged
@pytest.mark.parametrize(
    ("message", "tried"),
    [("throughput is half of what it was and I already rebooted twice", "Already tried"),
     ("训练速度只有原来一半，机器已经重启过三次了", "已经试过")],
)
def test_a_reboot_already_done_is_a_step_taken(offline_advisor, understanding, message, tried):
    assert "reboot" in understanding.read(message).frame.all("already_tried")
    assert tried in offline_advisor.answer(message, []).answer


@pytest.mark.parametrize(
    ("message", "start", "cause"),
    [("After about 40 minutes the step time doubles and the fans are screaming. Could it be thermal?", "**Probably yes", "heat"),
     ("跑了一个多小时之后每步变慢一倍，风扇狂转，是不是散热问题？", "**大概率是散热问题", "热"),
     ("GPU util sits at 30-40% the whole run, is it overheating?", "**Probably not heat", "Data loading"),
     ("利用率一直在百分之三四十，是不是过热？", "**大概率不是散热问题", "数据加载")],
)
def test_a_suspected_cause_gets_a_yes_or_no_from_the_symptoms(offline_advisor, message, start, cause):
    """A range ("30-40%", 百分之三四十) or a described symptom with no log is diagnosed: the verdict, then the cause."""
    answer = offline_advisor.answer(message, []).answer
    assert answer.startswith(start), answer[:200]
    assert cause in answer.split("\n\n", 1)[0]


def test_the_suspicion_itself_is_no_symptom():
    """"is it overheating?" names heat; without a symptom of heat the thermal causes do not rise for the word."""
    rules = load_rulebook()
    asked = diagnose(TroubleshootRequest(text="gpu util is stuck at 35% during training, is it overheating?"), rules)
    plain = diagnose(TroubleshootRequest(text="gpu util is stuck at 35% during training"), rules)
    assert [f.rule_id for f in asked.findings] == [f.rule_id for f in plain.findings]
    assert asked.answers and asked.answers[0].id == "is_thermal"


# 6. memory seen in use is not a card's memory
@pytest.mark.parametrize(
    "message",
    ["Serving Llama 3.1 8B, nvidia-smi shows 19 GB used on the GPU, is that normal?", "跑Llama 3.1 8B推理，显存占用了19GB，正常吗？",
     "nvidia-smi says 12GB in use on the card and nothing is running", "没跑任何程序，显存却已用了12G"],
)
def test_memory_seen_in_use_is_not_a_card(understanding, message):
    assert understanding.read(message).frame.all("gpu_memory") == []


@pytest.mark.parametrize("message", ["my card has 24GB of memory, can it serve Llama 3.1 8B?", "我的卡是24G显存，能跑Llama 3.1 8B推理吗"])
def test_a_card_stated_by_its_memory_still_is(understanding, message):
    assert understanding.read(message).frame.all("gpu_memory") == [24.0]


def test_a_follow_up_history_still_reads(offline_advisor):
    history = [ChatTurn(role="user", content="How do I serve Qwen2.5-32B on Ascend 910B?")]
    history.append(ChatTurn(role="assistant", content=offline_advisor.answer(history[0].content, []).answer))
    assert offline_advisor.answer("and with 4 cards?", history).answer
