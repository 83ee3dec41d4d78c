"""Follow-ups keep the described setup (#36): the configuration of a thread (model, card, cards per server, servers,
TP split, precision) is what the answer concluded with, and a follow-up inherits it unless it restates a value; a
pointer ("these", "这几台", "上面那个配置") means that configuration; one changed value re-runs the calculation and says
how the verdict moved; a question the configuration cannot answer says what can be computed and asks one question.
Every conversation here is our own wording, after each answer kind (rent or buy, recommendation, serving speed, sizing,
troubleshooting), in both languages."""

from __future__ import annotations

import pytest

from tests.threads import thread



def _calls(response, name):
    return [call for call in response.tool_calls if call.name == name and call.error is None]


def _cards(plan):
    """The cards a site plan counts: its servers and the cards in each."""
    return plan.result["servers"] * plan.result["gpus_per_server"]


def _concluded(response):
    """The serving layout an answer concluded with: its throughput estimate at the largest load (the first of equals)."""
    runs = _calls(response, "estimate_throughput")
    top = max(runs, key=lambda call: call.args.get("batch") or 1)
    return top.args["gpu"], top.result["num_gpus"], top.result["tp"], top.args.get("precision")


@pytest.mark.parametrize(
    "messages",
    [
        ["Should we rent or buy 2 servers of 8x H100 to serve Llama 3 70B, running all year?", "how much power would those draw?"],
        ["两台8卡H100服务器跑Llama 3 70B推理，全年运行，买还是租划算？", "这几台的功耗多少？"],
    ],
)
def test_site_after_rent_or_buy_keeps_both_servers(offline_advisor, messages):
    """"这几台" holds the count word "几台" but asks no count: the power of the two servers bought, not a rack's capacity."""
    _, power = thread(offline_advisor, *messages)
    plans = _calls(power, "plan_facility")
    assert plans and plans[0].args["gpu"] == "h100-sxm"
    assert plans[0].args.get("servers") == 2 and _cards(plans[0]) == 16
    assert "29.2" in power.summary.split("\n")[0]  # the facility load of both servers leads


@pytest.mark.parametrize(
    ("messages", "lead"),
    [
        (["We want Qwen2.5-72B on L20 cards for 1500 people chatting at once, how many cards?", "and how much power would those draw?"], "kW"),
        (["Qwen2.5-72B 放在 L20 上，1500 人同时聊天，要几张卡？", "这几张卡的功耗多少？"], "kW"),
    ],
)
def test_site_after_sizing_reads_the_concluded_count(offline_advisor, messages, lead):
    """A sizing tries TP=1, 2, 4, 8 at one request before it settles on 150 copies of TP=8: the count it concluded is the
    thread's, not the first probe's, and a count across copies spans many servers."""
    sized, power = thread(offline_advisor, *messages)
    gpu, count, tp, _ = _concluded(sized)
    assert count > tp  # several copies
    plans = _calls(power, "plan_facility")
    assert plans and plans[0].args["gpu"] == gpu and _cards(plans[0]) == count
    assert lead in power.summary.split("\n")[0]


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (["Which GPUs should we buy to serve Qwen2.5-72B to 100 concurrent users?", "what time to first token would that configuration give?"],
         ("Time to first token", "Worked out for")),
        (["给100个并发用户部署Qwen2.5-72B，买什么卡？", "上面那个配置的首token延迟是多少？"], ("首 token 延迟", "按上一个回答的配置计算")),
    ],
)
def test_latency_after_recommendation_keeps_its_split(offline_advisor, messages, words):
    """The recommended option's card, count and TP split are the speed's setup: no TP of the whole count."""
    recommended, latency = thread(offline_advisor, *messages)
    option = _calls(recommended, "recommend_gpus")[0].result["tiers"][0]["option"]
    run = _calls(latency, "estimate_throughput")[0]
    assert (run.args["gpu"], run.args["num_gpus"], run.args["tp"]) == (option["gpu_id"], option["count"], option["tp"] * option.get("pp", 1))
    first_line = latency.summary.split("\n")[0]
    assert words[0] in first_line and words[1] in latency.summary


@pytest.mark.parametrize(
    ("messages", "moved"),
    [
        (["How fast does Llama 3 70B run on 4 H100s for 30 users at 8k context?", "what about 128k context?"], ("131,072", "→")),
        (["4张L40S跑Qwen2.5-32B，20个并发，速度多少？", "换成INT4呢？"], ("int4", "→")),
    ],
)
def test_one_changed_value_reruns_the_speed_and_says_what_moved(offline_advisor, messages, moved):
    before, after = thread(offline_advisor, *messages)
    first_line = after.summary.split("\n")[0]
    assert all(word in first_line for word in moved), first_line
    then, now = _calls(before, "estimate_throughput")[0], _calls(after, "estimate_throughput")[0]
    assert (now.args["gpu"], now.args.get("num_gpus")) == (then.args["gpu"], then.args.get("num_gpus"))  # the rest kept


@pytest.mark.parametrize(
    ("messages", "moved"),
    [
        # all year, the two servers (at their whole-server quote) come out ahead only once resale is counted: the earlier
        # verdict is named with that condition, and the sentence still reads "from ... to rent"
        (["Should we rent or buy 2 servers of 8x H100 to serve Llama 3 70B, running all year?", "and if we only run them 8 hours a day?"],
         "the verdict flips from buy (only once resale is counted) to rent"),
        (["Which GPUs should we buy to serve Qwen2.5-32B to 200 concurrent users?", "and if we only need 50 concurrent users?"], "→"),
    ],
)
def test_one_added_constraint_says_how_the_verdict_moved(offline_advisor, messages, moved):
    _, after = thread(offline_advisor, *messages)
    first_line = after.summary.split("\n")[0]
    assert moved in first_line, first_line


@pytest.mark.parametrize(
    ("messages", "asks"),
    [
        # the L40 has no catalog price and no sourced estimate (the L40S now has one: knowledge/price_estimates.yaml)
        (["How fast does Llama 3 70B run on 4 L40 cards for 20 users?", "and how much would those cost?"], "What is your quoted price per"),
        (["4张L40跑Llama 3 70B，20个并发，速度多少？", "这几张卡要多少钱？"], "单卡报价是多少"),
    ],
)
def test_price_without_a_card_price_says_what_it_can_and_asks_one_question(offline_advisor, messages, asks):
    speed, price = thread(offline_advisor, *messages)
    assert asks in price.summary
    assert price.summary.split("\n")[0] not in speed.summary  # never the previous answer again
    assert [call.args["gpus"] for call in _calls(price, "estimate_server_price")] == [4]


@pytest.mark.parametrize(
    "messages",
    [
        ["Our vLLM server with Qwen2.5-32B on 2 RTX 4090 runs out of memory at startup", "what power supply would these need?"],
        ["我们用2张4090跑Qwen2.5-32B的vLLM，一启动就显存不足", "这几张卡要多大的电源？"],
    ],
)
def test_hardware_question_in_a_problem_thread_is_answered_for_its_cards(offline_advisor, messages):
    """A question pointing at the cards a problem runs on is no further evidence: their site plan, not the diagnosis again."""
    diagnosis, power = thread(offline_advisor, *messages)
    assert power.summary.split("\n")[0] not in diagnosis.summary
    plans = _calls(power, "plan_facility")
    assert plans and plans[0].args["gpu"] == "rtx-4090" and _cards(plans[0]) == 2


@pytest.mark.parametrize(
    "messages",
    [
        ["Our vLLM server with Qwen2.5-32B on 2 RTX 4090 runs out of memory at startup", "could the power supply be the cause?"],
        ["训练时4张A100经常掉卡，nvidia-smi 显示 GPU has fallen off the bus", "会不会是电源的问题？"],
    ],
)
def test_a_suspected_cause_stays_in_the_diagnosis(offline_advisor, messages):
    _, follow = thread(offline_advisor, *messages)
    assert not _calls(follow, "plan_facility")
