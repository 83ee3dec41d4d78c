""""MI300X instead of H100: what am I missing?": for each part of another vendor the question names, what a buyer weighs
before the figures (software for the engine and quantised formats, achieved against datasheet speed, what to
benchmark before signing). The points and their sources are data (knowledge/vendor_options.yaml ``tradeoffs``)."""

from __future__ import annotations

from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.equivalents import equivalents
from knowledge.vendor_options import vendor_options

WORDING = Wording("recommend", "tradeoffs")


def lines(turn: Turn, gpu_ids: list[str]) -> list[str]:
    """One block per vendor with trade-offs among ``gpu_ids`` (catalog ids), in the order named; none for NVIDIA parts."""
    vendors = dict.fromkeys(turn.catalog.gpu(g).vendor for g in gpu_ids if turn.catalog.find_gpu(g) is not None)
    blocks = []
    for vendor in vendors:
        tradeoff = vendor_options().tradeoffs.get(vendor)
        if tradeoff is None:
            continue
        points = "\n".join(f"- {turn.text(point)}" for point in tradeoff.points)
        label = next((turn.text(g.label) for g in equivalents().vendor_groups if tuple(g.vendors) == (vendor,)), vendor)
        blocks.append(f"**{WORDING.say(turn, 'heading', vendor=label)}**\n\n{points}")
        for source in tradeoff.sources:
            turn.cite(f"tradeoff:{vendor}:{source[:30]}", label, citation=source)
    return blocks
