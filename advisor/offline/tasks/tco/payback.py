"""The parts of a rent-or-buy answer about payback: a quoted payback checked against each cloud tier, the
payback table with each rate's date and source, stale prices, and the electricity line on its own."""

from __future__ import annotations

from collections.abc import Callable

from advisor.markdown import money, number, table
from advisor.offline.tasks.tco import price_dates
from advisor.offline.tasks.tco.spans import span
from advisor.offline.tasks.tco.plan import LINE_INPUTS
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("tco", "costs")
JOINERS = Wording("tco", "joiners")


def cards(turn: Turn, r: dict) -> str:
    """The cards compute_tco's result ``r`` is about ("8× H100 SXM")."""
    if r["gpu_name"]:
        return JOINERS.say(turn, "cards", count=r["total_gpus"], gpu=r["gpu_name"])
    return JOINERS.say(turn, "cards_unnamed", count=r["total_gpus"])

RUNNING_COSTS = {"energy", "maintenance", "colocation", "staff"}  # the monthly lines that make up owning's running cost


def line(turn: Turn, r: dict, key: str, inputs: Callable[[Turn, list[dict], str], str]) -> str:
    """One line item of the comparison with its formula, its share of running costs, and the inputs behind it."""
    if key == "energy":
        return electricity(turn, r, inputs)
    item = next(i for i in r["items"] if i["key"] == key)
    cur, opex = r["currency"], r["own_monthly_opex"]
    what = cards(turn, r)
    if key in RUNNING_COSTS and not item["value"]:  # "and the staff?" when none was counted: say so, not "$0.00" as a figure
        text = turn.text(WORDING.text("asked_line.not_counted", label=item["label"], what=what))
    else:
        text = turn.text(WORDING.text("asked_line.answer", label=item["label"], value=money(item["value"], cur), what=what, formula=f"`{turn.formula(item)}`"))
    if key in RUNNING_COSTS and opex and item["value"]:
        text += turn.text(WORDING.text("asked_line.share", share=number(item["value"] / opex * 100), opex=money(opex, cur)))
    if key in RUNNING_COSTS:
        text += moves_verdict(turn, r, item["value"])
    used = [a for a in r["assumptions"] if a["key"] in LINE_INPUTS[key]]
    return text + ("\n\n" + inputs(turn, used, cur) if used else "")


def moves_verdict(turn: Turn, r: dict, value: float) -> str:
    """How far one running cost of owning (``value`` a month) would have to move to flip the comparison's verdict: the
    component asked for, read against the monthly gap between owning and renting; "" when no rent was compared."""
    if not r.get("cloud_monthly_cost"):
        return ""
    cur, advantage = r["currency"], r.get("monthly_advantage") or 0.0  # owning's advantage a month; negative: renting is cheaper
    gap = money(abs(advantage), cur)
    if advantage >= 0:  # buying wins: the cost would have to rise by the gap
        key, threshold = "buy_until", value + advantage
    elif value <= 0:  # renting wins and the cost is not counted: counting it only widens renting's lead
        key, threshold = "rent_widens", 0.0
    elif -advantage >= value:  # renting wins by more than the whole cost: even at zero it would not flip
        key, threshold = "rent_even_at_zero", 0.0
    else:
        key, threshold = "rent_until", value + advantage
    return JOINERS.say(turn, "sentence_separator") + turn.text(WORDING.text(f"asked_line.verdict.{key}", gap=gap, threshold=money(threshold, cur)))


def electricity(turn: Turn, r: dict, inputs: Callable[[Turn, list[dict], str], str]) -> str:
    """The electricity line with its formula and share of running costs; ``inputs`` lists the figures it used."""
    item = next(i for i in r["items"] if i["key"] == "energy")
    cur, energy, opex = r["currency"], item["value"], r["own_monthly_opex"]
    if energy == 0:
        return turn.text(WORDING.text("electricity.included"))
    what = cards(turn, r)
    line = WORDING.text("electricity.answer", energy=money(energy, cur), what=what, formula=f"`{turn.formula(item)}`",
                  share=number(energy / opex * 100 if opex else 0), opex=money(opex, cur))  # fmt: skip
    defaults = [a for a in r["assumptions"] if a["key"] in ("electricity_price", "pue", "load_factor_pct", "server_max_kw")]
    return turn.text(line) + moves_verdict(turn, r, energy) + "\n\n" + inputs(turn, defaults, cur)


def _months(turn: Turn, months: float | None) -> str:
    return turn.text(WORDING.text("tiers.never") if months is None else WORDING.text("tiers.months", months=number(months)))


def claim_check(turn: Turn, r: dict) -> list[str]:
    """The quoted payback, checked: under which tier and utilisation it holds, or the closest it comes."""
    check, rows = r.get("claim_check"), r.get("tier_paybacks") or []
    if not check:
        return []
    cur, claimed, use = r["currency"], number(check["claimed_months"]), number(check["utilisation_pct"])
    slack = check["claimed_months"] * 1.1
    at_use = [row for row in rows if row["payback_months"] is not None and row["payback_months"] <= slack]
    fastest = next(row for row in rows if row["tier"] == check["best_tier"]) if check["best_tier"] else rows[0]
    cheapest = min(rows, key=lambda row: row["price_per_gpu_hour"])

    def filled(row: dict) -> dict:
        return {"tier": row["tier_name"], "rate": money(row["price_per_gpu_hour"], cur), "at_use": _months(turn, row["payback_months"]),
                "full": number(row["payback_months_full_use"]) if row["payback_months_full_use"] else "—"}  # fmt: skip

    if at_use:
        best = min(at_use, key=lambda row: row["payback_months"])
        line = WORDING.text("claim.holds_at_use", claimed=claimed, utilisation=use, **{**filled(best), "at_use": number(best["payback_months"])})
    elif check["holds_at_full_use"]:
        line = WORDING.text("claim.full_use_only", claimed=claimed, utilisation=use, **filled(fastest))
    else:
        line = WORDING.text("claim.does_not_hold", claimed=claimed, utilisation=use, **filled(fastest), cheapest=cheapest["tier_name"],
                      cheapest_rate=money(cheapest["price_per_gpu_hour"], cur), cheapest_at_use=_months(turn, cheapest["payback_months"]))  # fmt: skip
    lifetime = WORDING.text("claim.not_a_lifetime", claimed=claimed, span=span(r["horizon_months"]))
    return [turn.text(line), turn.text(lifetime)]


def tier_paybacks(turn: Turn, r: dict) -> list[str]:
    """Payback against each cloud tier the user could rent from, with each rate's date and source."""
    rows = r.get("tier_paybacks") or []
    if not rows:
        return []
    cur, check = r["currency"], r.get("claim_check")
    use = next((number(a["value"]) for a in r["assumptions"] if a["key"] == "utilisation_pct"), "—")
    capex = money(r["capex"], cur)
    headers = [turn.text(WORDING.text("tiers.tier")), turn.text(WORDING.text("tiers.rate")), turn.text(WORDING.text("tiers.at_use", utilisation=use)),
               turn.text(WORDING.text("tiers.at_full"))]  # fmt: skip
    if check:
        headers.append(turn.text(WORDING.text("tiers.needed", claimed=number(check["claimed_months"]))))
    body, sources = [], []
    for row in rows:
        marks = [turn.text(WORDING.text(key)) for key, on in (("tiers.derived", row["derived"]), ("tiers.company", row["company"])) if on]
        rate = money(row["price_per_gpu_hour"], cur) + (JOINERS.say(turn, "marks", marks=JOINERS.say(turn, "mark_joiner").join(marks)) if marks else "")
        cells = [turn.text(row["tier_name"]), rate, _months(turn, row["payback_months"]), _months(turn, row["payback_months_full_use"])]
        if check:
            needed = row["utilisation_for_claim_pct"]
            if row.get("billed_every_hour") and needed is not None:
                cells.append(WORDING.say(turn, "tier_summary.any_use"))
            else:
                cells.append(f"{number(needed)}%" if needed is not None and needed <= 100 else turn.text(WORDING.text("tiers.unreachable")))
        body.append(cells)
        fields = {"tier": row["tier_name"], "offer": row["offer"], "date": row["date"], "title": row["source_title"] or "", "url": row["source_url"] or ""}
        sources.append(turn.text(WORDING.text("tiers.company_source" if row["company"] else "tiers.source", **fields)))
    title = turn.text(WORDING.text("tiers.title", capex=capex, opex=money(r["own_monthly_opex"], cur)))
    listed = "**" + turn.text(WORDING.text("tiers.sources_title")) + "**\n" + "\n".join(f"- {line}" for line in sources)
    return [title + "\n\n" + table(headers, body), listed]


def stale_note(turn: Turn, r: dict) -> list[str]:
    stale = r.get("stale_prices") or []
    if not stale:
        return []
    items = [turn.text(WORDING.text("stale.item", what=p["what"], date=p["date"], age=price_dates.age(turn, p["age_months"], p.get("age_years"))))
             for p in stale]  # fmt: skip
    return [turn.text(WORDING.text("stale.note", items=JOINERS.say(turn, "items_joiner").join(items), months=price_dates.STALE_MONTHS))]


def tier_summary(turn: Turn, r: dict) -> str:
    """Payback against every tier in one sentence under the verdict, so the first screen shows what each way of
    renting means for the purchase (the table with rates' dates and sources is below the fold)."""
    rows = r.get("tier_paybacks") or []
    if len(rows) < 2:
        return ""
    cur = r["currency"]
    use = next((number(a["value"]) for a in r["assumptions"] if a["key"] == "utilisation_pct"), "—")

    def months(value: float | None) -> str:
        return WORDING.say(turn, "tier_summary.never") if value is None else WORDING.say(turn, "tier_summary.months", months=number(value))

    said = [WORDING.say(turn, "tier_summary.row", tier=turn.text(row["tier_name"]), rate=money(row["price_per_gpu_hour"], cur),
                        months=months(row["payback_months"])) + (WORDING.say(turn, "tier_summary.every_hour") if row.get("billed_every_hour") else "")
            for row in rows]  # fmt: skip
    return WORDING.say(turn, "tier_summary.lead", utilisation=use, rows=WORDING.say(turn, "tier_summary.joiner").join(said))


def tier_flip(turn: Turn, r: dict) -> str:
    """Where the verdict flips across the tiers, for the verdict itself: the tiers against which buying pays back within
    the horizon and those against which it does not (an on-demand rate is no commitment's, nor the reverse); "" when
    every tier agrees."""
    rows = r.get("tier_paybacks") or []
    horizon = r["horizon_months"]
    within = [row for row in rows if row["payback_months"] is not None and row["payback_months"] <= horizon]
    beyond = [row for row in rows if row not in within]
    if not within or not beyond:
        return ""
    joiner = WORDING.say(turn, "tier_summary.and")

    def names(group: list[dict]) -> str:
        return joiner.join(turn.text(row["tier_name"]) for row in group)

    return WORDING.say(turn, "tier_summary.flips", span=span(horizon), within=names(within), beyond=names(beyond))


def ratio_verdict(turn: Turn, r: dict) -> str:
    """The quoted multiple, checked: the tier it holds against at the use stated, the use it needs, or why not."""
    check = r.get("ratio_check")
    if not check:
        return ""
    cur, own = r["currency"], r["own_monthly_cost"]
    rows = {row["tier"]: row for row in r.get("tier_paybacks") or []}
    tiers = sorted(check["tiers"], key=lambda t: t["ratio"], reverse=True)
    dearest, cheapest = tiers[0], tiers[-1]
    use = next((a["value"] for a in r["assumptions"] if a["key"] == "utilisation_pct"), 0)
    values = {"claimed": number(check["claimed_ratio"]), "utilisation": number(use), "own": money(own, cur), "span": span(r["horizon_months"])}

    def of(tier: dict) -> dict:
        return {"tier": turn.text(tier["tier_name"]), "ratio": number(tier["ratio"], 1), "rent": money(rows[tier["tier"]]["monthly_rent_avoided"], cur)}

    if check["holds_at_your_use"]:
        return WORDING.say(turn, "ratio.holds", **values, **of(dearest), cheap_tier=turn.text(cheapest["tier_name"]), cheap_ratio=number(cheapest["ratio"], 1))
    reachable = [t for t in tiers if t["utilisation_for_claim_pct"] is not None and t["utilisation_for_claim_pct"] <= 100]
    if reachable:
        best = min(reachable, key=lambda t: t["utilisation_for_claim_pct"])
        return WORDING.say(turn, "ratio.holds_only", **values, **of(best), need=number(best["utilisation_for_claim_pct"]))
    return WORDING.say(turn, "ratio.does_not_hold", **values, **of(dearest), cheap_tier=turn.text(cheapest["tier_name"]),
                       cheap_ratio=number(cheapest["ratio"], 1))  # fmt: skip
