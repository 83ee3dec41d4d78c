"""The trap-check stage: runs after the answer's calculation and before it is read, and puts what the calculation
cannot see first, or right after the verdict when a yes/no between two named parts was asked (plan: which checks apply;
the tools: the market figures; render: the lead)."""

from __future__ import annotations

from advisor.offline.tasks.traps import plan, render
from advisor.offline.turn import Turn
from knowledge.trap_checks import trap_checks


def lead(turn: Turn, body: str) -> str:
    """``body`` led by every trap that applies (the deployment before the price: a plan that cannot be deployed makes its price moot).
    A verdict asked between two named parts ("is the H200 worth the premium?", "15x faster, true?") keeps the first
    paragraph: the traps follow that verdict, before its reasoning."""
    after = verdict_asked(turn)
    leads = [found for found in (_deployment(turn, after), _price(turn)) if found]
    if not leads:
        return body
    if after:
        verdict, _, rest = body.partition("\n\n")
        return "\n\n".join(part for part in (verdict, *leads, rest) if part)
    return "\n\n".join([*leads, body])


def verdict_asked(turn: Turn) -> bool:
    """The question asks a yes/no between two named parts (a premium, a claim): that verdict is the answer's first sentence."""
    return turn.ask.weighs_premium or turn.ask.weighs_claim


def _deployment(turn: Turn, after: bool = False) -> str:
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
    return render.deployment_lead(turn, trap, alternative, after)


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
