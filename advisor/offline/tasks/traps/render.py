"""Trap-check results as the answer's lead: the wording comes from this package's text.yaml."""

from __future__ import annotations

from advisor.markdown import bullet_list, money, number
from advisor.offline.tasks.recommend.price_view import range_text
from advisor.offline.tasks.traps.plan import DeploymentTrap, PriceTrap, on_board
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.trap_checks import trap_checks

DEPLOYMENT = Wording("traps", "deployment")
PRICE = Wording("traps", "price")
MAX_CONTEXTS = 2


def _joined(turn: Turn, items: list[str]) -> str:
    return turn.t("; ", "；").join(items)


def deployment_lead(turn: Turn, trap: DeploymentTrap, alternative: tuple[dict, int] | None, after: bool = False) -> str:
    """The trap as the answer's lead, or (``after``) as the warning right after a verdict that leads."""
    uptime = number(trap.uptime) if trap.uptime is not None else ""
    # the first two contexts said name the service; an uptime target has its own line below
    contexts = [DEPLOYMENT.say(turn, f"context.{kind}", uptime=uptime) for kind in trap.contexts[:MAX_CONTEXTS]]
    cards = turn.t(" and ", "、").join(f"{trap.count}× {card.name}" if i == 0 else card.name for i, card in enumerate(trap.cards))
    lines = [DEPLOYMENT.say(turn, "after_verdict" if after else "lead", context=turn.t(" and ", "、").join(contexts), cards=cards)]
    values = {"uptime": uptime, "hours": number(trap.downtime_hours) if trap.downtime_hours is not None else "",
              "servers": str(trap.servers), "count": str(trap.count)}  # fmt: skip
    items = [DEPLOYMENT.say(turn, f"failure.{failure}", **values) for failure in trap.failures]
    items.append(_alternative(turn, trap, alternative))
    for failure in trap_checks().deployment.failures:
        for page in (failure.source, failure.also):
            if page is not None and failure.id in trap.failures:
                turn.cite(f"trap:{failure.id}:{page.url}", page.title, page.says, urls=[page.url], citation=f"{page.title} ({page.date})")
    return lines[0] + "\n\n" + bullet_list([item for item in items if item])


def _alternative(turn: Turn, trap: DeploymentTrap, alternative: tuple[dict, int] | None) -> str:
    plural = DEPLOYMENT.say(turn, "server_noun.many" if trap.servers > 1 else "server_noun.one")
    if alternative is None:
        names = turn.t(", ", "、").join(gpu.name for gpu in trap.alternatives)
        return DEPLOYMENT.say(turn, "alternative_unpriced", names=names, servers=str(trap.servers), server_noun=plural) if names else ""
    result, per_server = alternative
    whole = result["whole"]
    currency = whole["currency"]
    price = range_text(whole["low"] * trap.servers, whole["high"] * trap.servers, currency)
    others = [gpu.name for gpu in trap.alternatives if gpu.id != result["gpu_id"]]
    gpu = turn.catalog.gpu(result["gpu_id"])
    for source in whole["sources"][:2]:
        turn.cite(f"price:{gpu.id}:{source[:40]}", result["gpu_name"], source, citation=source)
    return DEPLOYMENT.say(turn, "alternative", per_server=str(per_server), gpu=result["gpu_name"], memory=number(gpu.memory_gb),
                          servers=str(trap.servers), server_noun=plural, price=price, kind=DEPLOYMENT.say(turn, f"kind.{whole['basis']}"),
                          date=whole["date"], others=DEPLOYMENT.say(turn, "others", names=turn.t(", ", "、").join(others)) if others else "")  # fmt: skip


def price_lead(turn: Turn, trap: PriceTrap, result: dict, verdict: str) -> str:
    """``verdict``: "low" or "high"; the market range is the card's for a per-card quote, else the whole machine's."""
    data = trap_checks().price
    market = result["card"] if trap.per_card else result["whole"]
    currency = market["currency"]
    mid = (market["low"] + market["high"]) / 2
    config = f"1× {result['gpu_name']}" if trap.per_card else f"{result['gpus']}× {result['gpu_name']}"
    threshold = data.low_ratio if verdict == "low" else data.high_ratio
    lead = PRICE.say(turn, verdict, quoted=money(trap.quoted, currency), config=config, share=number(round(trap.quoted / mid * 100)),
                     market=range_text(market["low"], market["high"], currency), kind=DEPLOYMENT.say(turn, f"{'kind_card' if trap.per_card else 'kind'}.{market['basis']}"), date=market["date"],
                     threshold=number(round(threshold * 100)))  # fmt: skip
    if verdict == "low":
        reasons = [e.id for e in data.explain_low if e.when is None or (e.when == "cn" and turn.china_buyer) or (e.when == "board" and on_board(trap.gpu))]
        asks = data.ask_low
    else:
        reasons, asks = data.explain_high, data.ask_high
    titles = [source.split(" — ")[0] for source in market["sources"][:2]]
    if titles:
        lead += turn.t(" ", "") + PRICE.say(turn, "source", sources=_joined(turn, titles))
    lines = [lead, PRICE.say(turn, "explains", items=_joined(turn, [PRICE.say(turn, f"reason.{r}") for r in reasons])),
             PRICE.say(turn, "ask", items=_joined(turn, [PRICE.say(turn, f"ask_item.{a}") for a in asks]))]  # fmt: skip
    for source in market["sources"][:3]:
        turn.cite(f"price:{result['gpu_id']}:{source[:40]}", result["gpu_name"], source, citation=source)
    return "\n\n".join(lines)

