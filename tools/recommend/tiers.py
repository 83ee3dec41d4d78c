"""Three tiers a consultant would show: recommended, budget and room to grow.

*Budget* is the cheapest whole configuration that works. *Recommended* is the simplest one that fits with
memory to spare and meets the load: the fewest GPUs, a current part, a standard server (8-GPU HGX/PCIe, a
workstation or a desktop), not a GeForce card in a server. *Room to grow* has at least twice the recommended
configuration's GPU memory, again preferring the fewest GPUs, at no more than a few times the recommended
configuration's price (``grow.max_cost_factor``: the next step a buyer would fund, not any price). The rules' thresholds and the wording live in
knowledge/servers.yaml.
"""

from __future__ import annotations

from collections.abc import Callable

from knowledge.bilingual import Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from knowledge.servers import ServerData
from knowledge.serving_precision import serving_precision
from tools.recommend.configs import sold_as
from tools.recommend.schema import Option, RecommendRequest, Tier, TierName
from tools.recommend.rank import fills_budget, speed_step
from tools.recommend.speed import load, sized_by_speed

Check = Callable[[Option], bool]


def _works(option: Option) -> bool:
    """Has a price, meets the load and, when a budget is given, stays within it."""
    return option.purchase_cost is not None and option.meets_target is not False and option.within_budget is not False


def _fill(template: Text, **values: object) -> Text:
    return Text(en=template.en.format(**values), zh=template.zh.format(**values))


def _memory(option: Option) -> float:
    return option.count * option.capacity_gb


def _speed(option: Option, task: str) -> float:
    return (option.tokens_per_s_total if task == "inference" else option.total_tflops) or 0.0


def standard_part(gpu: GPU, data: ServerData) -> bool:
    """Sold in a standard server (not a rack, a Mac, a laptop, a module or a cloud) by a vendor most engines support."""
    return sold_as(gpu) not in data.recommended.exotic_sold_as and gpu.vendor not in data.recommended.exotic_vendors


def current_part(gpu: GPU, catalog: Catalog, data: ServerData) -> bool:
    """Launched within the rule's years of the newest part in the catalog: a part a buyer would order today."""
    return gpu.launch_year >= max(g.launch_year for g in catalog.gpus) - data.recommended.recent_years


def _standard_checks(catalog: Catalog, data: ServerData) -> list[Check]:
    """What makes a configuration one a buyer would order today, strictest last so it is the first relaxed."""

    def standard(option: Option) -> bool:
        return standard_part(catalog.gpu(option.gpu_id), data)

    def current(option: Option) -> bool:
        return current_part(catalog.gpu(option.gpu_id), catalog, data)

    lossy = serving_precision().lossy()

    def full_quality(option: Option) -> bool:  # a 4-bit format chosen for the card because 16-bit weights did not fit it
        return option.precision not in lossy

    return [standard, lambda o: not o.consumer_server, current, full_quality]


def _simplest(options: list[Option], checks: list[Check]) -> tuple[Option | None, bool]:
    """The fewest GPUs, then the cheapest, among options passing every check; the last checks are relaxed when
    none passes. Returns the option and whether all checks held."""
    for kept in range(len(checks), 0, -1):
        passing = [o for o in options if all(check(o) for check in checks[:kept])]
        if passing:
            return min(passing, key=lambda o: (o.count, o.purchase_cost or 0.0)), kept == len(checks)
    return None, False


def _fastest(options: list[Option], checks: list[Check], task: str) -> tuple[Option | None, bool]:
    """Like ``_simplest``, but the fastest first (speeds within 5% tie), then the fewest GPUs, then the cheapest: a
    budget larger than the job is spent on speed and room, not saved by default."""
    for kept in range(len(checks), 0, -1):
        passing = [o for o in options if all(check(o) for check in checks[:kept])]
        if passing:
            top = max((_speed(o, task) for o in passing), default=0.0) or None
            step = {id(o): speed_step(o, task, top) for o in passing}
            return min(passing, key=lambda o: (step[id(o)] is None, step[id(o)] or 0, o.count, o.purchase_cost or 0.0)), kept == len(checks)
    return None, False


def pick_tiers(options: list[Option], request: RecommendRequest, catalog: Catalog, data: ServerData) -> list[Tier]:
    """Recommended, budget and room to grow from every configuration that works; fewer when they coincide."""
    working = [o for o in options if _works(o)]
    if not working:
        return []
    text, rules = data.tier_text, data.recommended
    users = load(request) if sized_by_speed(request) else None
    load_text = _fill(text.load, users=f"{users:,}") if users else Text(en="", zh="")
    # GeForce cards in a server (team serving) only when nothing else works: the driver licence excludes it; a count
    # many times the fewest that work is no budget anyone deploys (knowledge/servers.yaml budget_count_factor)
    limit = max(rules.budget_count_factor * min(o.count for o in working), rules.budget_count_floor)
    deployable = [o for o in working if o.count <= limit] or working
    budget = min(deployable, key=lambda o: (o.consumer_server, o.purchase_cost or 0.0, o.count))
    budget_reason = _fill(text.reasons["budget"], load_en=load_text.en, load_zh=load_text.zh)

    roomy = [o for o in working if o.headroom_pct >= rules.min_headroom_pct]
    checks = _standard_checks(catalog, data)
    spend = fills_budget(request)
    recommended, standard = (_fastest if spend else _simplest)(roomy, checks, *([request.task] if spend else []))
    if recommended is None or not standard:
        # nothing current and standard has memory to spare: the cheapest that works, said plainly
        recommended, recommended_reason = budget, text.reasons["recommended_only"]
    elif spend and recommended is not budget:
        recommended_reason = _fill(text.reasons["recommended_budget"], headroom=f"{recommended.headroom_pct:.0f}", count=recommended.count)
    else:
        key = "recommended_one" if recommended.count == 1 else "recommended_many"
        recommended_reason = _fill(text.reasons[key], headroom=f"{recommended.headroom_pct:.0f}", count=recommended.count)

    larger = [o for o in working if _memory(o) > _memory(recommended) and o is not recommended and all(c(o) for c in checks[:2])
              and _affordable_step(o, recommended, data.grow.max_cost_factor)]  # fmt: skip
    roomier = [o for o in larger if _memory(o) >= data.grow.memory_factor * _memory(recommended)]
    if roomier:
        grow: Option | None = min(roomier, key=lambda o: (o.count, o.purchase_cost or 0.0))
    else:  # nothing that much larger works (e.g. within the budget): the most memory that does
        grow = max(larger, key=lambda o: (_memory(o), _speed(o, request.task)), default=None)
        grow = grow if grow is not None and _memory(grow) >= data.grow.fallback_memory_factor * _memory(recommended) else None
    grow_reason = _fill(text.reasons["grow"], ratio=f"{_memory(grow) / _memory(recommended):.1f}".rstrip("0").rstrip(".")) if grow else None

    picked: list[tuple[TierName, Option, Text]] = [("recommended", recommended, recommended_reason)]
    if budget is not recommended:
        picked.append(("budget", budget, budget_reason))
    if grow is not None and grow_reason is not None and grow is not budget:
        picked.append(("grow", grow, grow_reason))
    return [Tier(name=name, label=text.labels[name], option=option, reason=reason) for name, option, reason in picked]


def _affordable_step(option: Option, recommended: Option, factor: float) -> bool:
    """Within ``factor`` times the recommended configuration's whole price (unpriced: not judged)."""
    if option.purchase_cost is None or not recommended.purchase_cost:
        return True
    return option.purchase_cost <= factor * recommended.purchase_cost


def tiers_first(options: list[Option], tiers: list[Tier]) -> list[Option]:
    """The tiers' configurations first (recommended, budget, room to grow), then the rest in their order."""
    chosen = [t.option for t in tiers]
    return chosen + [o for o in options if all(o is not c for c in chosen)]
