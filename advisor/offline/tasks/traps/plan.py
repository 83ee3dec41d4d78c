"""Which trap checks apply to a turn, and the tool arguments they need: read from the Ask, the slots and the catalog
(knowledge/trap_checks.yaml for the rules); no wording here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.offline.turn import Turn
from knowledge.gpus import GPU
from knowledge.trap_checks import Failure, trap_checks
from tools.recommend.price_estimate import standard_count

HOURS_PER_YEAR = 8760


@dataclass
class DeploymentTrap:
    cards: list[GPU]
    contexts: list[str]  # service_context kinds said, and "uptime" when a target was
    failures: list[str]  # failure ids that apply, in the data's order
    count: int  # the consumer cards proposed per server
    servers: int  # the servers the alternative is priced for
    uptime: float | None
    downtime_hours: float | None
    alternatives: list[GPU] = field(default_factory=list)


@dataclass
class PriceTrap:
    gpu: GPU
    gpus: int  # the configuration the quote is for (1 for a card)
    quoted: float
    currency: str
    per_card: bool


def _applies(failure: Failure, card: GPU, uptime: float | None) -> bool:
    for key, wanted in failure.when.items():
        have = uptime is not None if key == "uptime" else getattr(card, key)
        if have != wanted:
            return False
    return True


def deployment_trap(turn: Turn) -> DeploymentTrap | None:
    """Consumer cards in the conversation proposed for a regulated, client-site or production service, or under an
    uptime target: the plan fails on the card class whatever the capacity."""
    ask = turn.ask
    if not ask.service_context and ask.uptime_target is None:
        return None
    data = trap_checks().deployment
    cards = [gpu for name in turn.slots.gpus if (gpu := turn.catalog.find_gpu(name)) is not None and gpu.segment in data.segments]
    if not cards:
        return None
    cards = list({gpu.id: gpu for gpu in cards}.values())
    uptime = ask.uptime_target
    failures = [f.id for f in data.failures if any(_applies(f, card, uptime) for card in cards)]
    count = turn.slots.gpu_count or 1
    servers = max(turn.slots.servers or 1, data.min_servers_for_uptime if uptime is not None else 1)
    market = "cn" if turn.china_buyer else "global"
    alternatives = [gpu for gpu_id in data.alternatives[market] if (gpu := turn.catalog.find_gpu(gpu_id)) is not None]
    contexts = [*ask.service_context, *(["uptime"] if uptime is not None else [])]
    hours = round((100 - uptime) / 100 * HOURS_PER_YEAR, 1) if uptime is not None else None
    return DeploymentTrap(cards, contexts, failures, count, servers, uptime, hours, alternatives)


def alternative_cards(trap: DeploymentTrap, gpu: GPU) -> int:
    """Data-centre cards per server holding at least the memory of the consumer cards proposed."""
    memory = sum(card.memory_gb for card in trap.cards[:1]) * trap.count
    return max(1, math.ceil(memory / gpu.memory_gb))


def price_trap(turn: Turn) -> PriceTrap | None:
    """A quoted price for a named card or server: the configuration it is for, to set against the market figure."""
    price = turn.slots.server_price
    gpus = turn.entities.gpus or turn.slots.gpus
    if price is None or price.per != "once" or not gpus or price.currency not in ("USD", "CNY") or price.amount <= 0:  # a rent is no price
        return None
    gpu = turn.catalog.find_gpu(gpus[0])
    if gpu is None or gpu.segment == "apple":
        return None
    per_card = turn.ask.quote_per_card
    # a server's price is one machine's: "16 H100s, a server costs $300k" prices an 8-GPU server, not sixteen cards
    count = 1 if per_card else min(turn.slots.gpus_per_server or turn.slots.gpu_count or standard_count(gpu), standard_count(gpu))
    return PriceTrap(gpu, count, price.amount, price.currency, per_card)


def on_board(gpu: GPU) -> bool:
    """A part sold on a board (SXM, OAM): a PCIe card can be sold under its name."""
    return any(word in gpu.form_factor for word in ("SXM", "OAM", "HGX"))
