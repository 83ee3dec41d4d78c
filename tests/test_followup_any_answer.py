"""A follow-up that asks a new subject of any answer (#36: "follow-ups on any answer") is answered by that subject, for the
configuration of the previous answer, never by re-running the previous calculation: power and rack after a
recommendation (the site plan of the recommended cards), a price after a sizing, the chassis after a recommendation,
the speed after a sizing; counts said in the first turn ("4 of these servers") carry into the follow-up. Recurring
faults lead with the repeat's disposition; an air-cooling question about a rack density leads with the verdict.
Our own wording, both languages."""

from __future__ import annotations

import pytest

from advisor.nlu.follow_up import follow_up_subject
from tests.threads import ask, calls

RERUN_LEAD = ("(everything else as before)", "其余条件不变")


@pytest.mark.parametrize(("message", "subject"), [
    ("how many kW would those boxes pull, and is a 12 kW rack enough?", "site"),
    ("那这些机器散热怎么搞？", "site"),
    ("ok and what would all that set us back?", "price"),
    ("这一套下来大概多少钱？", "price"),
    ("is a tower case fine for it or does it need a rack server?", "form_factor"),
    ("放在塔式机箱里行不行？", "form_factor"),
    ("and how fast would it be?", "speed"),
    ("推理速度大概多少？", "speed"),
    ("and with 4 cards", None),  # a changed value, no question of its own
])
def test_the_new_subject_of_a_follow_up_is_read_from_its_words(message, subject):
    assert follow_up_subject(message) == subject


SITE_AFTER_RECOMMEND = [
    ("What hardware do we need to serve Qwen2.5-72B to 60 people at once?", "how many kW would that pull, and is a 12 kW rack enough?"),
    ("给60个人同时用Qwen2.5-72B，需要什么硬件？", "这套机器功耗多少？12kW的机柜够不够？"),
]


@pytest.mark.parametrize(("first", "message"), SITE_AFTER_RECOMMEND)
def test_power_after_a_recommendation_is_the_site_plan_of_the_recommended_cards(offline_advisor, first, message):
    before = ask(offline_advisor, first)
    chosen = calls(before, "recommend_gpus")[0].result["tiers"][0]["option"]
    reply = ask(offline_advisor, message, first)
    plans = calls(reply, "plan_facility")
    assert plans, reply.summary[:400]
    assert plans[0].args["gpu"] == chosen["gpu_id"]  # the recommended card, not a default H100
    assert plans[0].args["rack_power_kw"] == 12
    assert not calls(reply, "recommend_gpus") or reply.summary.split("\n")[0] != before.summary.split("\n")[0]
    assert not any(lead in reply.summary for lead in RERUN_LEAD)
    assert "previous answer" in reply.summary or "上一个回答" in reply.summary


@pytest.mark.parametrize(("first", "message"), [
    ("How much GPU memory does a QLoRA fine-tune of Llama 3.1 70B take?", "ok and what would that set us back?"),
    ("QLoRA微调Llama 3.1 70B要多少显存？", "那一套下来大概多少钱？"),
])
def test_a_price_after_a_sizing_prices_a_configuration_that_holds_it(offline_advisor, first, message):
    before = ask(offline_advisor, first)
    reply = ask(offline_advisor, message, first)
    assert reply.summary.split("\n")[0] != before.summary.split("\n")[0]  # never the sizing again
    assert calls(reply, "recommend_gpus") or calls(reply, "estimate_server_price")
    assert "$" in reply.summary.split("\n\n")[0] or "¥" in reply.summary.split("\n\n")[0]


@pytest.mark.parametrize(("first", "message"), [
    ("How many tokens per second does Qwen2.5-14B get on two L40S for 10 users?", "what would those two cards cost us?"),
    ("两张L40S跑Qwen2.5-14B，10个并发每人多少token/s？", "这两张卡的整套配置要多少钱？"),
])
def test_a_price_after_a_speed_prices_that_configuration(offline_advisor, first, message):
    reply = ask(offline_advisor, message, first)
    priced = calls(reply, "estimate_server_price")
    assert priced and priced[0].args["gpu"] == "l40s" and priced[0].args["gpus"] == 2, reply.summary[:400]
    assert not calls(reply, "estimate_throughput")


@pytest.mark.parametrize(("first", "message"), [
    ("Which GPU server should we get to serve Qwen2.5-32B to 15 users?", "is a tower case fine for it or does it need a rack server?"),
    ("给15个人部署Qwen2.5-32B，买什么服务器？", "放在塔式机箱里行不行，还是必须机架式？"),
])
def test_the_chassis_after_a_recommendation_is_judged_for_that_configuration(offline_advisor, first, message):
    reply = ask(offline_advisor, message, first)
    assert not calls(reply, "recommend_gpus")  # the recommendation is not repeated
    assert "airflow" in reply.summary or "风道" in reply.summary or "风扇" in reply.summary, reply.summary[:500]


@pytest.mark.parametrize(("first", "message", "servers"), [
    ("We run 3 of these servers, 8x A100 80GB SXM each. How long to fine-tune a 7B model on 20B tokens?", "and how much power do they draw?", 3),
    ("我们有3台服务器，每台8张A100 80GB。7B模型训练200亿token要多久？", "这些机器功耗多少？", 3),
])
def test_a_server_count_said_first_carries_into_the_follow_up(offline_advisor, first, message, servers):
    before = ask(offline_advisor, first)
    assert any(call.args.get("num_gpus") == 8 * servers for call in calls(before, "estimate_training_time")), before.summary[:300]
    reply = ask(offline_advisor, message, first)
    plans = calls(reply, "plan_facility")
    assert plans and plans[0].args["servers"] == servers, reply.summary[:300]


@pytest.mark.parametrize(("message", "words"), [
    ("GPU 5 hit Xid 79 again this morning, the same card already did it twice last week. Next step?", ("RMA", "nvidia-bug-report")),
    ("5号卡今天又报Xid 79了，上周这张卡已经掉过两次，下一步怎么办？", ("RMA", "nvidia-bug-report")),
])
def test_a_recurring_fault_leads_with_the_disposition_of_a_repeat(offline_advisor, message, words):
    reply = ask(offline_advisor, message)
    first = reply.summary.split("\n\n")[0]
    assert all(word in first for word in words), first
    assert "not an RMA yet" not in first and "暂不返修" not in first


@pytest.mark.parametrize(("message", "verdict"), [
    ("is 45 kW per rack doable with air cooling?", "**Not with room air alone"),
    ("机柜每个25kW，用风冷扛得住吗？", "**可以"),
])
def test_an_air_cooling_question_about_a_rack_density_leads_with_its_verdict(offline_advisor, message, verdict):
    reply = ask(offline_advisor, message)
    assert reply.summary.startswith(verdict), reply.summary[:300]
    assert calls(reply, "plan_facility")
