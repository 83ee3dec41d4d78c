"""A card's memory as the user states it ("our A100s are the 40 GB ones", "a modded 48 GB 4090"): the user's fact
wins over the catalog. A catalog variant of the same card with that memory is used when there is one (A100 40GB);
otherwise the named card is sized with the stated memory (the tools take ``gpu_memory_gb`` beside ``gpu``)."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.markdown import number
from advisor.offline.tasks.serving.serving_words import serving_text
from advisor.offline.turn import Turn


@dataclass(frozen=True)
class StatedCard:
    gpu: str  # the catalog id to size with
    memory_gb: float | None  # the stated memory to pass beside it, when no catalog variant has it
    note: str  # the sentence that says the stated figure was used ("" when nothing changed)


def stated_card(turn: Turn, gpu: str) -> StatedCard:
    """``gpu`` with the memory the user stated for it, and the sentence that says so."""
    stated = turn.slots.gpu_memory_gb
    card = turn.catalog.find_gpu(gpu)
    if not stated or card is None or stated == card.memory_gb:
        return StatedCard(gpu, None, "")
    turn.slots.mark("gpu_memory")
    variant = _variant(turn, card, stated)
    if variant is not None:
        return StatedCard(variant.id, None, turn.text(serving_text("stated_variant", card=variant.name, memory=number(stated))))
    figures = {"card": card.name, "memory": number(stated), "catalog": number(card.memory_gb)}
    return StatedCard(card.id, stated, turn.text(serving_text("stated_memory", **figures)))


def _variant(turn: Turn, card, memory_gb: float):
    """The catalog's card of the same name but for its memory ("A100 80GB SXM" → "A100 40GB SXM")."""
    wanted = card.name.replace(f"{card.memory_gb:g}GB", f"{memory_gb:g}GB")
    if wanted == card.name:
        return None
    return next((g for g in turn.catalog.gpus if g.name == wanted and g.memory_gb == memory_gb), None)


def traffic_lines(turn: Turn, to_rate: bool = False) -> list[str]:
    """The conversion in one line when the load came from traffic over a period (``to_rate``: up to the peak rate, for
    answers that apply Little's law with their own speed estimate)."""
    traffic = turn.slots.traffic
    return [turn.text(traffic.chain(to_rate))] if traffic is not None else []
