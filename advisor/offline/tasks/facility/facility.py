"""Data-centre questions answered with arithmetic: servers per rack at a power budget, racks, IT and facility load,
air or liquid, electricity per year. plan.py turns the Ask into plan_facility arguments, the tool computes, render.py
words the result (the package text.yaml, section facility); this module runs the three in order."""

from __future__ import annotations

from advisor.offline.tasks.facility import facility_fabric, facility_prep, facility_swap, plan, render
from advisor.offline.tasks.facility.sources import cite, cite_socket
from advisor.offline.turn import Turn


def answer(turn: Turn) -> str:
    if plan.asks_fabric(turn):
        servers, gpus = plan.counts(turn)
        choice = plan.asks_now(turn, "fabric_choice") and not plan.asks_now(turn, "fabric")  # "IB or RoCE?" rather than "how many switches?"
        return facility_fabric.answer(turn, servers, gpus, choice=choice)
    servers, gpus = plan.counts(turn)
    if turn.ask.replaces_hardware and len(turn.slots.gpus) >= 2:  # "our A100 boxes → H200": what the site must add
        return facility_swap.answer(turn, plan.plan_args(turn, turn.slots.gpus[0], servers, gpus), turn.slots.gpus[1])
    if len(turn.slots.gpus) >= 2 and not turn.reading.follow_up:  # "H20 and 910B servers in 12 kW racks": each part's verdict
        return facility_swap.each(turn, plan.plan_args(turn, turn.slots.gpus[0], servers, gpus), turn.slots.gpus)
    outcome = turn.call("plan_facility", plan.plan_args(turn, plan.gpu_of(turn), servers, gpus))
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    if r["circuit_kw"] is not None and not plan.fleet(turn) and (r["servers_on_circuit"] or 0) > 1:
        # no count stated: the load and the bill are those of the servers the feeds carry
        outcome = turn.call("plan_facility", {**outcome.args, "servers": r["servers_on_circuit"]})
        if not outcome.ok:
            return turn.error(outcome)
        r = outcome.result
    cite(turn, r)
    values = render.figure_values(turn, r)
    if plan.asks_now(turn, "prepare") and (prepared := facility_prep.checklist(turn, outcome.args, r, values, turn.china_buyer)):
        # what the room must have, line by line; a China buyer of a part they cannot buy new hears so, with parts they can
        china = render.china_high_density(turn, r, render.PREPARE)
        status = [render.say(turn, "summary.china", gpu=r["gpu_name"], status=render.say(turn, f"china_status.{r['china']}"), rule=turn.text(r["china_rule"]))] if china else []
        options = render.china_alternatives(turn, r, values, render.PREPARE)
        listed = [f"**{render.say(turn, 'options_title')}**\n" + "\n".join(f"- {line}" for line in options)] if options else []
        # the parts they can buy come before the checklist of the one they cannot: that is their decision, read first
        return "\n\n".join([prepared[0], *status, *listed, *prepared[1:], *render.detail_tables(turn, r)])
    leads = render.lead_keys(turn, r)  # "the bill, and do they fit the racks?": one lead per site measure asked
    lead = render.lead_key(turn, r)
    blocks = [turn.t(" ", "").join(render.say(turn, key, **values) for key in leads), turn.t(" ", "").join(render.summary_lines(turn, r, values, lead, tuple(leads)))]
    if plan.asks_now(turn, "hosting") and r.get("colocation"):  # "what will hosting them cost?": colocation and energy lead
        blocks.insert(0, render.hosting(turn, r))
    if render.also_the_bill(turn, lead):
        blocks.insert(1, render.say(turn, "lead.electricity_month" if plan.asks_now(turn, "monthly") else "lead.electricity", **values))
    if render.china_high_density(turn, r, lead):
        blocks.append(
            render.say(turn, "summary.china", gpu=r["gpu_name"], status=render.say(turn, f"china_status.{r['china']}"), rule=turn.text(r["china_rule"]))
        )
    options = render.china_alternatives(turn, r, values) + render.option_lines(turn, r, values)
    if options:  # what a buyer can do comes before the fold; the assumptions follow it
        blocks.append(f"**{render.say(turn, 'options_title')}**\n" + "\n".join(f"- {line}" for line in options))
    assumed = render.assumption_lines(turn, r, values, lead, tuple(leads))
    if plan.on_wall_socket(turn):  # "on a normal socket?": which socket the verdict is for comes first
        assumed.insert(0, render.say(turn, "assumption.wall_socket", socket=turn.text(plan.socket_of(turn).name)))
        cite_socket(turn, plan.socket_of(turn))
    blocks.append(f"**{render.say(turn, 'assumptions_title')}**\n" + "\n".join(f"- {line}" for line in assumed))
    blocks += render.detail_tables(turn, r)
    return "\n\n".join(blocks)
