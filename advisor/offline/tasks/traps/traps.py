"""The trap-check stage: runs after the answer's calculation and before it is read, and puts what the calculation
cannot see first (plan: which checks apply; the tools: the market figures; render: the lead)."""

from __future__ import annotations

from advisor.offline.tasks.traps import plan, render
from advisor.offline.turn import Turn
from knowledge.trap_checks import trap_checks


def lead(turn: Turn, body: str) -> str:
    """``body`` led by every trap that applies (the deployment before the price: a plan that cannot be deployed makes its price moot)."""
    leads = [found for found in (_deployment(turn), _price(turn)) if found]
    return "\n\n".join([*leads, body]) if leads else body


def _deployment(turn: Turn) -> str:
    trap = plan.deployment_trap(turn)
    if trap is None:
        return ""
    alternative = None
    for gpu in trap.alternatives:
        per_server = plan.alternative_cards(trap, gpu)
        outcome = turn.call("estimate_server_price", {"gpu": gpu.id, "gpus": per_server, "currency": turn.currency})
        if outcome.ok and outcome.result.get("whole"):
            alternative = (outcome.result, per_server)
            break
    return render.deployment_lead(turn, trap, alternative)


def _price(turn: Turn) -> str:
    trap = plan.price_trap(turn)
    if trap is None:
        return ""
    outcome = turn.call("estimate_server_price", {"gpu": trap.gpu.id, "gpus": trap.gpus, "currency": trap.currency})
    if not outcome.ok:
        return ""
    market = outcome.result["card"] if trap.per_card else outcome.result["whole"]
    if not market:
        return ""
    data = trap_checks().price
    if trap.quoted < market["low"] * data.not_a_quote_ratio:  # no machine's price: a rent or another figure misread as one
        return ""
    if trap.quoted < market["low"] * data.low_ratio:
        return render.price_lead(turn, trap, outcome.result, "low")
    if trap.quoted > market["high"] * data.high_ratio:
        return render.price_lead(turn, trap, outcome.result, "high")
    return ""
