"""A follow-up that asks a question of its own about the thread's setup (#36: "so will 4 cards be 4x faster?", "and does
that need NVLink?") is answered first, yes or no with the figures of the tools, for the thread's model and cards; the
thread's calculation follows below it. A follow-up that only changes a value still re-runs the calculation. Our own
wording, both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.follow_up import follow_up_asks
from tests.threads import ask, calls

RERUN_LEAD = ("(everything else as before)", "其余条件不变")


@pytest.mark.parametrize(("message", "subject"), [
    ("so will 4 cards be 4x faster?", "scaling"),
    ("if we add a second one, does it double the speed?", "scaling"),
    ("那4张卡是不是就快4倍？", "scaling"),
    ("换成4张能线性提速吗？", "scaling"),
    ("and does that need NVLink?", "interconnect"),
    ("这套配置卡之间需要高速互联吗？", "interconnect"),
    ("and with 4 cards?", None),  # a changed value only
    ("换成4张呢", None),
    ("the NVLink one", None),  # no question asked
])
def test_the_subject_a_follow_up_asks_is_read_from_its_words(message, subject):
    assert follow_up_asks(message) == subject


SCALING = [
    # (first question, follow-up, opening of the verdict, the multiple it is measured against)
    ("How fast does Llama 3.1 8B run on one RTX 4090 in fp16 for a single user?", "so will 4 cards be 4x faster?",
     "**No — about", "not 4×"),
    ("一张4090跑Qwen2.5-7B，单用户每秒多少token？", "那4张卡是不是就快4倍？", "**不会，每用户只快约", "不是 4 倍"),
    ("两张A6000跑Llama 3.1 8B，20个并发每人多少token/s？", "换成4张能线性提速吗？", "**不会，每用户只快约", "不是 2 倍"),
]


@pytest.mark.parametrize(("first", "message", "opening", "multiple"), SCALING, ids=[case[1][:20] for case in SCALING])
def test_will_more_cards_be_n_times_faster_is_answered_with_the_speed_up_against_the_earlier_figure(offline_advisor, first, message, opening, multiple):
    reply = ask(offline_advisor, message, first)
    assert reply.summary.startswith(opening), reply.summary[:300]
    assert multiple in reply.summary.split("\n")[0]
    assert not any(lead in reply.summary for lead in RERUN_LEAD)  # a question of its own, not a changed value
    runs = calls(reply, "estimate_throughput")
    counts = {(run.args["num_gpus"], run.args.get("tp")) for run in runs}
    assert len({num for num, _ in counts}) >= 2  # the earlier count beside the new one, from the tool
    assert any(tp is not None and num > tp for num, tp in counts)  # the same cards as separate copies
    assert "copies" in reply.summary or "副本" in reply.summary


INTERCONNECT = [
    ("Which GPUs should we buy to serve Qwen2.5-72B in BF16 to 100 concurrent users?", "would those cards need an NVLink bridge?", "own GPU-to-GPU link"),
    ("How much memory does Llama 3.1 70B need at FP16 on 8 A100 80GB?", "is PCIe enough between them or do we need NVLink?", "**It is already there:**"),
    ("How many GPUs do I need to serve Llama 3.1 70B in FP16?", "and does that need NVLink?", "**Not required, but the split then runs over PCIe:**"),
    ("用H100部署Llama 3.1 70B，FP8，需要几张卡？", "这样需要NVLink吗？", "**已经有了：**"),
    ("想用L40S部署Qwen2.5-32B给50人用，推荐什么配置？", "这套配置卡之间需要高速互联吗？", "**不是必需的，但拆分就只能走 PCIe：**"),
]


@pytest.mark.parametrize(("first", "message", "verdict"), INTERCONNECT, ids=[case[1][:20] for case in INTERCONNECT])
def test_does_that_need_nvlink_is_answered_for_the_layout_just_given(offline_advisor, first, message, verdict):
    reply = ask(offline_advisor, message, first)
    assert verdict in reply.summary.split("\n")[0], reply.summary[:300]
    assert calls(reply, "check_capability")  # the card's link, from the catalog
    assert "**The calculation this rests on" in reply.summary or "**这个判断依据的计算" in reply.summary


@pytest.mark.parametrize(("first", "message", "lead"), [
    ("How fast does Llama 3.1 8B run on one RTX 4090 in fp16 for a single user?", "and with 4 cards?", RERUN_LEAD[0]),
    ("一张4090跑Qwen2.5-7B，单用户每秒多少token？", "换成4张呢", RERUN_LEAD[1]),
])
def test_a_changed_value_alone_still_reruns_the_calculation(offline_advisor, first, message, lead):
    reply = ask(offline_advisor, message, first)
    assert lead in reply.summary.split("\n")[0], reply.summary[:300]


@pytest.mark.parametrize(("first", "message", "opening"), [
    ("Rent or buy 8 H100 for two years at 70% utilisation?", "so buying is cheaper, right?", "**No, the other way round.** **Rent:"),
    ("Should we rent or buy 16 A100 for four years at 90% use?", "so owning wins here, correct?", "**Yes.** **Buy:"),
    ("8张H100租三年和买哪个划算？", "那还是租划算吧？", "**是的。** **租更划算"),
])
def test_a_confirmation_of_one_side_of_rent_or_buy_is_answered_yes_or_no_first(offline_advisor, first, message, opening):
    reply = ask(offline_advisor, message, first)
    assert reply.summary.startswith(opening), reply.summary[:300]
    assert calls(reply, "compute_tco")
