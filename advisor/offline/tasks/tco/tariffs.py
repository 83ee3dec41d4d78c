"""One line on whose electricity and colocation prices a cost answer used: the region the user placed the servers in
(compute_tco's ``region``), which of its prices had no source (the planning default stood in), or that no region was
named. Figures come from the comparison's own inputs."""

from __future__ import annotations

from advisor.markdown import money
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from tools.cost.tco import DERIVED_COLO

WORDING = Wording("tco", "tariff_region")


def _input(r: dict, key: str) -> dict | None:
    return next((a for a in r["assumptions"] if a["key"] == key), None)


def region_line(turn: Turn, r: dict) -> str:
    """Whose power and colocation prices the figures use; "" when the user gave both."""
    cur = r["currency"]
    power, colo = _input(r, "electricity_price"), _input(r, "colo_price_per_kw_month")
    power_given = power is None or power["source"] == "given"
    colo_given = colo is None or colo["source"] in ("given", DERIVED_COLO)  # a rate per kW-month or a bill the user stated
    if power_given and colo_given:
        return ""
    values = {"electricity": money(power["value"], cur) if power else "", "colo": money(colo["value"], cur) if colo else ""}
    region = r.get("region")
    if region is None:
        return WORDING.say(turn, "none", **values) if not (power_given or colo_given) else ""
    name = Text.model_validate(region["name"])
    values |= {"electricity_source": region.get("electricity_source", ""), "colo_source": region.get("colocation_source", "")}
    if not region["electricity_fallback"] and not region["colocation_fallback"] and not (power_given or colo_given):
        average = WORDING.say(turn, "average") if region["colocation_global_average"] else ""
        return WORDING.say(turn, "sourced", region=name, average=average, **values)
    lines = []
    if not power_given:
        lines.append(WORDING.say(turn, "electricity_fallback" if region["electricity_fallback"] else "sourced_electricity", region=name, **values))
    if not colo_given:
        average = WORDING.say(turn, "average") if region["colocation_global_average"] else ""
        lines.append(WORDING.say(turn, "colocation_fallback" if region["colocation_fallback"] else "sourced_colocation", region=name,
                                 average=average, **values))  # fmt: skip
    return turn.t(" ", "").join(lines)
