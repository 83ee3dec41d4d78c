"""The recommend task's sentences from recommend_gpus's result: the verdict (the configuration, its price, speed and
what it was ranked by), the options table, the buying tiers with the mainland pick, the card variants stated and the
stale-price note. Wording from the package text.yaml (section recommend); every figure from a tool, no tool arguments
decided here (plan.py's)."""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.offline.tasks.recommend import plan
from advisor.offline.tasks.recommend.price_view import option_price
from advisor.offline.tasks.recommend.tiers_view import tier_lines
from advisor.offline.tasks.serving.peak_said import peak_said
from advisor.offline.tasks.serving.serving_card import stated_card
from advisor.offline.tasks.tco import price_dates
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import gpus_on_hand
from knowledge.bilingual import Text
from knowledge.servers import server_data
from knowledge.serving_precision import serving_precision
from tools.gpu_specs import CHINA_BUYABLE

WORDING = Wording("recommend", "recommend")
PRICES = Wording("recommend", "market")  # the price dates a recommendation leans on

OBJECTIVE_LABEL = {
    "cheapest": WORDING.pair("sizing_phrases.objective_label.lowest_purchase_price_of_the"),
    "fastest": WORDING.pair("sizing_phrases.objective_label.fastest_most_tokens_s_in"),
    "cloud": WORDING.pair("sizing_phrases.objective_label.lowest_cloud_cost_per_hour"),
    "china": WORDING.pair("sizing_phrases.objective_label.buyable_new_in_mainland_china"),
    "budget": WORDING.pair("sizing_phrases.objective_label.within_the_budget_fastest_first"),
    "power": WORDING.pair("sizing_phrases.objective_label.least_board_power_of_the"),
    "memory": WORDING.pair("sizing_phrases.objective_label.most_gpu_memory_per_unit"),
    "value": WORDING.pair("sizing_phrases.objective_label.most_tokens_s_per_price"),
}


def verdict(turn: Turn, r: dict, label: str) -> str:
    top, cur = r["options"][0], r["currency"]
    what = turn.text(top["config_label"])
    if top.get("purchase_cost") is not None and not plan.on_hand(turn, top) and not plan.rent_leads(turn):  # no purchase price for cards owned, never bought or rented first
        what = WORDING.say(turn, "sizing_phrases.verdict.priced", what=what, price=option_price(turn, top, cur))  # what to buy, in all
    over = top.get("within_budget") is False  # nothing holds the model within the budget: the closest is named as such
    head = WORDING.say(turn, "lines.over_budget_closest" if over else "lines.on_hand" if plan.uses_owned(turn, top) else "lines.recommended")
    lead = WORDING.say(turn, "sizing_phrases.verdict.lead", head=head, what=what, nominal_gb=number(_nominal(turn, top)), label=label, model_label=turn.text(r['model_label']), params_b=number(r['params_b']), per_gpu_gb=number(top['per_gpu_gb']), headroom_pct=number(top['headroom_pct']))
    if plan.rent_leads(turn):  # "we only use the cloud", "cloud is fine": what renting it costs leads
        rent = top.get("cloud_cost_per_hour")
        rents_at = "sizing_phrases.verdict.rents_at" if turn.ask.rents_only else "sizing_phrases.verdict.rents_at_or_buy"
        lead += WORDING.say(turn, rents_at if rent is not None else "sizing_phrases.verdict.no_rent_known", rent=money(rent or 0, cur))
    if over:  # configurations without a known price that need less memory in all may be within the budget: name them
        room = top["count"] * top["nominal_memory_gb"]
        smaller = [o for o in r["options"] if o.get("purchase_cost") is None and o["count"] * o["nominal_memory_gb"] < room][:2]
        if smaller:
            names = WORDING.say(turn, "lines.list_joiner").join(turn.text(o["config_label"]) for o in smaller)
            lead += WORDING.say(turn, "sizing_phrases.verdict.smaller_configurations_without_a_price", names=names)  # fmt: skip
    if top.get("tokens_per_s_per_user") is not None and top["tokens_per_s_total"] <= top["tokens_per_s_per_user"]:
        # one user at a time: the total also pays for reading the prompt, so it is the lower figure and says nothing more
        lead += WORDING.say(turn, "sizing_phrases.verdict.speed_tokens_s", tokens_per_s_per_user=number(top['tokens_per_s_per_user']))
    elif top.get("tokens_per_s_per_user") is not None:
        lead += WORDING.say(turn, "sizing_phrases.verdict.speed_tokens_s_per_user", tokens_per_s_per_user=number(top['tokens_per_s_per_user']), tokens_per_s_total=number(top['tokens_per_s_total']))
    load = _load_said(turn, r)
    if load.startswith("\n\n"):  # the one-user default is a paragraph of its own: the verdict stays one short paragraph
        lead += _format_said(turn, r, top) + load
    else:
        lead += load + _format_said(turn, r, top)
    objective = "cheapest" if over else r.get("objective")
    ranked_by = turn.t(*OBJECTIVE_LABEL[objective]) if objective else turn.text(server_data().tier_text.ranked_by)
    if not top.get("consumer_server") and any(o.get("consumer_server") for o in r["options"]):
        # why a slower card leads: otherwise "fastest first" reads as a mistake
        ranked_by += WORDING.say(turn, "sizing_phrases.verdict.geforce_builds_after_data_center")  # fmt: skip
    return lead + "\n\n" + WORDING.say(turn, "sizing_phrases.verdict.ranked_by", ranked_by=ranked_by)


def _format_said(turn: Turn, r: dict, top: dict) -> str:
    """The weight format a serving recommendation was sized in when none was named: a default that moves the verdict
    (FP8 halves the weights), said beside it; its reasons and pages are among the notes."""
    if r["task"] != "inference":
        return ""
    if top.get("precision") and (rule := serving_precision().rule_for(turn.catalog.gpu(top["gpu_id"]), top["precision"])) is not None:
        ratio = WORDING.say(turn, f"sizing_phrases.verdict.weight_ratio.{rule.precision}")  # not FP8's when sized in 4-bit
        return WORDING.say(turn, "sizing_phrases.verdict.format_practice", format=turn.text(rule.label), ratio=ratio)
    if turn.ask.quality_first and turn.ask.workload.precision is None:
        return WORDING.say(turn, "sizing_phrases.verdict.format_quality")
    return ""


def _load_said(turn: Turn, r: dict) -> str:
    """The load a serving recommendation was sized for, in its lead: a team's peak taken as a planning share of its head
    count (knowledge/audience.yaml) is a default that can change the verdict, so it is said beside it, not only below."""
    users = turn.slots.concurrency if r["task"] == "inference" else None
    if users is None and r["task"] == "inference" and r["options"][0].get("max_users_at_target") is None:
        return "\n\n" + WORDING.say(turn, "sizing_phrases.verdict.load_one").strip()  # one stream at a time, a default said, not left silent
    said = peak_said(turn, users)  # a team's peak, or a request count read as a month's: the serving lead's rule
    if said or not users or users < 2:
        return said
    return WORDING.say(turn, "sizing_phrases.verdict.load_stated", users=number(users))


def buying_tiers(turn: Turn, r: dict, region: str) -> list[str]:
    """What to buy, in tiers; none when the cards the user has already do the job (they are told to use them, not to buy them)."""
    if plan.uses_owned(turn, r["options"][0]):
        return []
    return [*tier_lines(turn, r), *_mainland_pick(turn, r, region)]


def _mainland_pick(turn: Turn, r: dict, region: str) -> list[str]:
    """A Chinese question that names no region may still be bought in mainland China: point at the first option sold there."""
    if turn.language != "zh" or region == "cn":
        return []
    sold = [i for i, o in enumerate(r["options"], start=1) if turn.catalog.gpu(o["gpu_id"]).china in CHINA_BUYABLE]
    if sold[:1] == [1]:  # the first recommendation is sold there already
        return []
    if not sold:
        return [WORDING.entry("lines.mainland_none")["zh"]]  # said to Chinese questions only
    pick = r["options"][sold[0] - 1]
    return [WORDING.entry("lines.mainland_pick")["zh"].format(number=sold[0], config=turn.text(pick["config_label"]))]


def options_table(turn: Turn, r: dict) -> str:
    options, cur = r["options"], r["currency"]
    speed = any(o.get("tokens_per_s_total") is not None for o in options)
    sized = any(o.get("meets_target") is not None for o in options)
    headers = ["#", WORDING.say(turn, "sizing_phrases.options_table.configuration"), WORDING.say(turn, "sizing_phrases.options_table.memory"), WORDING.say(turn, "sizing_phrases.options_table.plan"), WORDING.say(turn, "sizing_phrases.options_table.need_gpu"), WORDING.say(turn, "sizing_phrases.options_table.headroom")]
    if speed:
        headers += [WORDING.say(turn, "sizing_phrases.options_table.tokens_s_per_user"), WORDING.say(turn, "sizing_phrases.options_table.tokens_s_total")]
    if sized:
        headers.append(WORDING.say(turn, "sizing_phrases.options_table.meets_the_load"))
    # cards already on hand and no word of renting: a rental column answers nothing asked
    rent = turn.ask.renting or not (turn.slots.gpus and gpus_on_hand(turn))
    buy = not turn.ask.rents_only  # "we only use the cloud": a purchase column answers nothing asked
    headers += ([WORDING.say(turn, "sizing_phrases.options_table.purchase_whole")] if buy else []) + ([WORDING.say(turn, "sizing_phrases.options_table.cloud_h")] if rent else [])
    rows = []
    for i, o in enumerate(options, start=1):
        row = [i, turn.text(o["config_label"]), f"{number(_nominal(turn, o))} GB", turn.text(o["plan_label"]), f"{number(o['per_gpu_gb'])} GB", f"{number(o['headroom_pct'])}%"]
        if speed:
            row += [number(o.get("tokens_per_s_per_user")), number(o.get("tokens_per_s_total"))]
        if sized:
            row.append({True: WORDING.say(turn, "sizing_phrases.options_table.yes"), False: WORDING.say(turn, "sizing_phrases.options_table.no")}.get(o.get("meets_target"), "—"))
        row += ([option_price(turn, o, cur)] if buy else []) + ([money(o["cloud_cost_per_hour"], cur)] if rent else [])
        rows.append(row)
    return table(headers, rows)


def _nominal(turn: Turn, option: dict) -> float:
    """The memory size printed on the box (the estimator compares against usable bytes)."""
    return turn.catalog.gpu(option["gpu_id"]).memory_gb


def stale_prices(turn: Turn, stale: list[dict]) -> list[str]:
    """One line, last, naming the GPU prices behind the options that are older than the stale threshold, each with its age."""
    if not stale:
        return []
    items = [PRICES.say(turn, "stale_price", what=turn.text(Text(**row["what"])), date=row["date"],
                        age=price_dates.age(turn, row["age_months"], row.get("age_years"))) for row in stale]  # fmt: skip
    return [f"_{PRICES.say(turn, 'stale_prices', items=turn.t(', ', '、').join(items))}_"]


def stated_variants(turn: Turn) -> list[str]:
    """The sentence that says the card's stated memory was used (the recommender takes a catalog variant only)."""
    cards = [stated_card(turn, gpu) for gpu in turn.slots.gpus[:1]]
    return [card.note for card in cards if card.note and card.memory_gb is None]
