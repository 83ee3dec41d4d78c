""""Can one of them run in the office on a normal socket?" after a server question is answered from those servers'
draw against one ordinary wall socket (a verdict with the arithmetic), never with a neighbouring card; feeds stated
outright take over even when the classifier is unsure of the facility task. Wording is our own; both languages."""

from __future__ import annotations

import pytest

from tests.threads import ask, calls

CASES = [
    ("could one of those boxes sit under a desk on an ordinary power outlet?", ["Three 8x H100 servers: how much power in total?"], "en", "No", "15 A × 120 V"),
    ("放在办公室接普通插座可以吗？", ["三台8卡H100服务器总功耗多少？"], "zh", "带不动", "10 A × 220 V"),
    ("一台8卡H100服务器能接在一路10A 220V的电上吗？", [], "zh", "带不动", "10 A × 220 V"),
]


@pytest.mark.parametrize(("message", "earlier", "language", "verdict", "feed"), CASES, ids=[c[0][:20] for c in CASES])
def test_a_socket_question_gets_the_servers_draw_against_the_socket(offline_advisor, message, earlier, language, verdict, feed):
    reply = ask(offline_advisor, message, *earlier)
    assert reply.language == language
    assert calls(reply, "plan_facility"), reply.answer[:300]
    assert verdict in reply.summary.split("\n")[0], reply.summary[:300]
    assert feed in reply.answer


@pytest.mark.parametrize(
    ("earlier", "message"),
    [
        ("Six 8x A100 servers go into racks of 15 kW each; how many racks?", "and just one of them on a regular office plug?"),
        ("六台8卡A100服务器，每个机柜15kW，需要几个柜子？", "其中一台放办公室插普通插座行不行？"),
    ],
)
def test_a_socket_question_weighs_one_server_not_the_threads_fleet_or_rack(offline_advisor, earlier, message):
    """The thread's server count and rack budget describe the data centre; the office question is about one machine
    on one socket, and a power cap that would need the cards at 0 W is no option."""
    reply = ask(offline_advisor, message, earlier)
    plan = calls(reply, "plan_facility")[-1]
    assert plan.args["servers"] == 1 and plan.args.get("rack_power_kw") is None, plan.args
    assert " 0 W" not in reply.answer and "0%" not in reply.answer.split("**Options**")[-1][:200]
