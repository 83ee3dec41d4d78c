"""“Which GPU?” and “how much memory?” answers, from the recommender and the memory estimator."""

from __future__ import annotations

import datetime as dt

from advisor.offline.wording import Wording
from advisor.markdown import money, number, table
from advisor.offline.tasks.specs import compare, specs
from advisor.offline.tasks.concept import knowledge
from advisor.offline.tasks.memory import memory_view, methods_view, plan, render
from advisor.offline.tasks.memory.range_ends import small_end_lines
from advisor.offline.tasks.recommend import compute_view, full_alongside, mainland, service_model, vendor_rows, vendor_tradeoffs
from advisor.offline.tasks.serving.engines import engine_of
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.tasks.training import run_time
from advisor.offline.tasks.recommend.price_view import option_price
from advisor.offline.tasks.recommend.recommend_lines import budget_short, rent_or_buy, running_budget, sized_for, value_for_money, value_lines, workloads_of
from advisor.offline.tasks.serving.serving_card import stated_card, traffic_lines
from advisor.offline.tasks.recommend.tiers_view import tier_lines
from advisor.offline.workload import TASK_LABEL, gpus_on_hand, model_of, precision_for, task_of
from advisor.offline.turn import Turn
from knowledge.audience import PeakLoad
from knowledge.bilingual import Text
from knowledge.servers import server_data
from tools.gpu_specs import CHINA_BUYABLE

WORDING = Wording("memory", "sizing")
PRICES = Wording("recommend", "market")  # the market and the price dates a recommendation leans on

# The understanding layer's objective values (entities.yaml) → the recommender's ranking.
OBJECTIVES = {"cheapest": "cheapest", "fastest": "fastest", "cheapest_cloud": "cloud", "least_power": "power", "most_memory": "memory"}
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


def _ask_for_model(turn: Turn) -> str:
    """No model yet: what the knowledge base says about the question, then the one thing needed to calculate."""
    return knowledge.concept(turn) + "\n\n" + WORDING.say(turn, "sizing_phrases.ask_for_model.which_model_or_how_many")


def _serving_args(turn: Turn, task: str) -> dict:
    """Concurrency, speed target, engine and 'for a team' — serving only; stated for training they are named as unused."""
    s = turn.slots
    target = s.frame.get("speed_target")
    per_user = isinstance(target, float) and not turn.ask.latency_target
    if task != "inference":
        if s.frame.has("concurrency") or per_user:
            turn.ignore("concurrency", *WORDING.pair("sizing_phrases.serving_args.concurrent_users_and_speed_targets"))
        return {}
    if per_user:
        s.mark("speed_target")
    return {
        "concurrency": s.concurrency,
        "kv_precision": s.kv_precision,
        "tokens_per_s_per_user": target if per_user else None,
        "engine": engine_of(turn),
        "team": True if s.for_a_team else None,
    }


def recommend(turn: Turn) -> str:
    model, defaulted = model_of(turn), None
    if model is None and (default := service_model.default_model(turn)):  # "an assistant for 250 staff": a stated default model
        model, defaulted = default
    if model is None:
        return specs.answer(turn) if turn.entities.gpus else _ask_for_model(turn)
    if vendor_rows.applies(turn):  # several vendors weighed: a row per vendor and a verdict, not one ranked list
        return vendor_rows.answer(turn)
    if _modded_card(turn):  # the recommender knows catalog cards only: the stated card is sized by the memory estimate
        return memory(turn)
    if methods_view.applies(turn) and not turn.slots.budget:  # "how many cards for full FT and for QLoRA?": each method's count
        return _methods(turn, model)
    task, named = task_of(turn)
    budget = turn.slots.budget
    args = recommend_args(turn, model, task)
    outcome = turn.call("recommend_gpus", args)
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    options = r["options"]
    label = turn.t(*TASK_LABEL[r["task"]])  # several jobs asked: the one that set the size
    if not options and turn.slots.gpus and not turn.count_asked:  # "can my 4090 do it?": the verdict for that GPU says why not
        return memory(turn)
    if not named:
        turn.assume(*WORDING.pair("sizing_phrases.recommend.task_serving_inference_since_none"))
    if not options:
        return "\n\n".join([WORDING.say(turn, "sizing_phrases.recommend.no_catalog_gpu_fits_for", model_label=turn.text(r['model_label']), label=label)] + [f"- {turn.text(n)}" for n in r["notes"]])
    running = running_budget(turn, r, budget.amount, budget.per) if budget else []  # "$5,000 a month": set against renting
    # a budget that buys nothing: said first, with what it does buy
    short = running or (budget_short(turn, r, budget.amount) if budget and budget.per in ("once", "all") else [])
    lead = " ".join([*short, _verdict(turn, r, label)])  # one paragraph: the budget's verdict, then the closest configuration
    if defaulted:  # the verdict, then the model it was sized on (the default that moves it most), then the ranking
        verdict, _, ranked = lead.partition("\n\n")
        lead = "\n\n".join(filter(None, [verdict, defaulted, ranked]))
    if args["region"] == "cn" and turn.slots.gpus:  # a named part not sold new in mainland China: said with the verdict, not under it
        named_ids = [stated_card(turn, gpu).gpu for gpu in turn.slots.gpus]
        lead = "\n\n".join([*mainland.blocked_of(turn, mainland.barred(turn, named_ids), then="sized_instead"), lead])
    full = full_alongside.lines(turn, args, r) if full_alongside.applies(turn, task) else []  # a bare "fine-tune" is not only LoRA
    full += compute_view.lines(turn, model, task, r, args["workloads"]) if compute_view.applies(turn, task) else []  # tokens given: FLOPs, days, rent or buy
    parts = [lead, *vendor_tradeoffs.lines(turn, turn.entities.gpus), *full, *value_lines(turn, r), *small_end_lines(turn, r, args), *traffic_lines(turn), *stated_variants(turn), *rent_or_buy(turn, r), *sized_for(turn, r), *_buying_tiers(turn, r, args["region"]),
             _options_table(turn, r), f"_{turn.text(r['unit_note'])}_"]  # fmt: skip
    top = options[0]
    parts.append("**" + WORDING.say(turn, "sizing_phrases.recommend.why") + "**: " + "; ".join(turn.text(x) for x in top["reasons"]))
    parts += filter(None, [run_time.time_on(turn, model, task, top)])
    if r.get("estimate"):
        parts.append(memory_view.breakdown(turn, r["estimate"]))
    if not named:
        parts.append(memory_view.other_tasks(turn, model))
    parts += [f"- {turn.text(n)}" for n in r["excluded"] + r["notes"]]
    parts += memory_view.rule_of_thumb(turn, r.get("estimate"))
    parts += _stale_prices(turn, r["stale_prices"])
    if budget and not running:
        turn.assume(*WORDING.both("sizing_phrases.recommend.budget_for_the_whole_configuration", budget=money(budget.amount, budget.currency)))
    turn.assume(*WORDING.pair("sizing_phrases.recommend.prices_are_indicative_catalog_figures"))
    related(turn, f"{label} {turn.message}")
    return "\n\n".join(parts)


def _buying_tiers(turn: Turn, r: dict, region: str) -> list[str]:
    """What to buy, in tiers; none when the cards the user has already do the job (they are told to use them, not to buy them)."""
    if _uses_owned(turn, r["options"][0]):
        return []
    return [*tier_lines(turn, r), *_mainland_pick(turn, r, region)]


def _methods(turn: Turn, model: str) -> str:
    card = stated_card(turn, turn.slots.gpus[0]) if turn.slots.gpus else None
    stated_gb = card.memory_gb if card else turn.slots.gpu_memory_gb  # "a modded 48 GB 4090", "my 24 GB card": as said
    return methods_view.answer(turn, model, {"model": model, "context": turn.slots.context_length, "batch": turn.slots.batch_size, "gpu_memory_gb": stated_gb})


def _stale_prices(turn: Turn, stale: list[dict]) -> list[str]:
    """One line, last, naming the GPU prices behind the options that are over 6 months old."""
    if not stale:
        return []
    items = [PRICES.text("stale_price", what=Text(**row["what"]), date=row["date"]) for row in stale]
    listed = Text(en=", ".join(i.en for i in items), zh="、".join(i.zh for i in items))
    return [f"_{turn.text(PRICES.text('stale_prices', items=listed))}_"]


def recommend_args(turn: Turn, model: str, task: str) -> dict:
    """What the conversation asks of ``recommend_gpus``: the answer and the procurement proposal size the same need."""
    s = turn.slots
    budget = s.budget
    workloads = workloads_of(turn, model, task)  # "LoRA on 7B, serve 13B, sometimes a full fine-tune": sized for the largest
    serves = task == "inference" or any(w["task"] == "inference" for w in workloads or [])  # users and speed belong to the serving job
    args = {
        "model": model,
        "task": task,
        "precision": precision_for(turn, task),
        "context": s.context_length,
        "batch": s.batch_size,
        "objective": OBJECTIVES.get(s.objective or ""),  # none stated: the tiers lead (within the budget, when given)
        "budget": budget.amount if budget else None,
        **({"budget_per": budget.per} if budget and budget.per in ("month", "year") else {}),  # a running budget is met by renting
        "currency": budget.currency if budget else turn.currency,
        "region": "cn" if s.region == "cn" else "global",
        "gpus": [stated_card(turn, gpu).gpu for gpu in s.gpus] or None,  # "our A100s are the 40 GB ones": that variant
        "max_gpus": gpus_on_hand(turn),
        **_serving_args(turn, "inference" if serves else task),
        "today": dt.date.today().isoformat(),
        "workloads": workloads,
    }
    if s.gpu_memory_gb and not args["gpus"]:  # "I have 24G of memory": the card the user has (or wants), not a value to set aside
        sized = [g.id for g in turn.catalog.gpus if g.memory_gb == s.gpu_memory_gb and g.segment != "apple"]
        if sized:
            args["gpus"] = sized
            turn.assume(*WORDING.both("sizing_phrases.recommend_args.cards_with_gb_as_stated", gpu_memory_gb=number(s.gpu_memory_gb)))
    if args["objective"] == "cheapest" and turn.ask.renting:
        args["objective"] = "cloud"  # "which gpu should i rent … cheapest": the lowest rent, not the lowest purchase price
    value_for_money(turn, args, serves)
    # a Chinese question or a yuan budget is a mainland buyer; renting is not buying (China clouds still rent A100s and 4090s)
    if args["region"] != "cn" and turn.ask.market == "cn" and not s.gpus and not turn.ask.renting:
        args["region"] = "cn"
        turn.assume(*PRICES.pair("cn"))
    if args["gpus"] and mainland.mainland_purchase(turn) and mainland.barred(turn, args["gpus"]):
        # "in Shenzhen, how many H100s?": a part not sold new there is replaced by what is (its China edition), said first
        args["region"], args["gpus"] = "cn", mainland.sold_instead(turn, args["gpus"])
    if s.keeps_to("china_buyable") or s.keeps_to("domestic"):
        args["region"], args["objective"] = "cn", args["objective"] or "china"
    if s.keeps_to("domestic"):  # Chinese-made accelerators only
        args["gpus"] = [g.id for g in turn.catalog.gpus if g.china == "domestic"]  # the export rules' vendor list decides
    if s.keeps_to("datacenter_only"):
        allowed = args["gpus"] or [g.id for g in turn.catalog.gpus]
        args["gpus"] = [g for g in allowed if turn.catalog.gpu(g).segment == "datacenter"]
        turn.assume(*WORDING.pair("sizing_phrases.recommend_args.data_center_accelerators_only_geforce"))
    return args


def _on_hand(turn: Turn, option: dict) -> bool:
    """The option is the cards the user says they have (that GPU, no more of them than they have)."""
    if not turn.ask.holds_cards:  # "buy or rent 8 H100s?", "we have quotes for 2x H100": cards not said to be the user's
        return False
    have = gpus_on_hand(turn)
    return bool(have) and option["gpu_id"] in {turn.catalog.gpu(g).id for g in turn.slots.gpus} and option["count"] <= have


def _uses_owned(turn: Turn, option: dict) -> bool:
    """The option is cards the user has, and the question is not how many of them it would take ("how many A6000s instead?")."""
    return _on_hand(turn, option) and not turn.count_asked


def stated_variants(turn: Turn) -> list[str]:
    """The sentence that says the card's stated memory was used (the recommender takes a catalog variant only)."""
    cards = [stated_card(turn, gpu) for gpu in turn.slots.gpus[:1]]
    return [card.note for card in cards if card.note and card.memory_gb is None]


def _modded_card(turn: Turn) -> bool:
    """The one named card has a memory no catalog variant has (a modded 48 GB 4090): the memory estimate sizes it."""
    return bool(turn.slots.gpus) and stated_card(turn, turn.slots.gpus[0]).memory_gb is not None


def _verdict(turn: Turn, r: dict, label: str) -> str:
    top, cur = r["options"][0], r["currency"]
    what = turn.text(top["config_label"])
    over = top.get("within_budget") is False  # nothing holds the model within the budget: the closest is named as such
    head = WORDING.say(turn, "lines.over_budget_closest" if over else "lines.on_hand" if _uses_owned(turn, top) else "lines.recommended")
    lead = WORDING.say(turn, "sizing_phrases.verdict.lead", head=head, what=what, nominal_gb=number(_nominal(turn, top)), label=label, model_label=turn.text(r['model_label']), params_b=number(r['params_b']), per_gpu_gb=number(top['per_gpu_gb']), headroom_pct=number(top['headroom_pct']))
    if top.get("purchase_cost") is not None and not _on_hand(turn, top):  # no purchase price for cards already owned
        lead += WORDING.say(turn, "sizing_phrases.verdict.the_whole_configuration", price=option_price(turn, top, cur))
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
    lead += _load_said(turn, r)
    objective = "cheapest" if over else r.get("objective")
    ranked_by = turn.t(*OBJECTIVE_LABEL[objective]) if objective else turn.text(server_data().tier_text.ranked_by)
    if not top.get("consumer_server") and any(o.get("consumer_server") for o in r["options"]):
        # why a slower card leads: otherwise "fastest first" reads as a mistake
        ranked_by += WORDING.say(turn, "sizing_phrases.verdict.geforce_builds_after_data_center")  # fmt: skip
    return lead + "\n\n" + WORDING.say(turn, "sizing_phrases.verdict.ranked_by", ranked_by=ranked_by)


def _load_said(turn: Turn, r: dict) -> str:
    """The load a serving recommendation was sized for, in its lead: a team's peak taken as a planning share of its head
    count (knowledge/audience.yaml) is a default that can change the verdict, so it is said beside it, not only below."""
    users = turn.slots.concurrency if r["task"] == "inference" else None
    if not users or users < 2:
        return ""
    peak = turn.slots.peak_load
    if isinstance(peak, PeakLoad):
        return WORDING.say(turn, "sizing_phrases.verdict.load_share", users=number(users), share=f"{peak.share * 100:g}", people=peak.said)
    return WORDING.say(turn, "sizing_phrases.verdict.load_stated", users=number(users))


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


def _options_table(turn: Turn, r: dict) -> str:
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
    headers += [WORDING.say(turn, "sizing_phrases.options_table.purchase_whole")] + ([WORDING.say(turn, "sizing_phrases.options_table.cloud_h")] if rent else [])
    rows = []
    for i, o in enumerate(options, start=1):
        row = [i, turn.text(o["config_label"]), f"{number(_nominal(turn, o))} GB", turn.text(o["plan_label"]), f"{number(o['per_gpu_gb'])} GB", f"{number(o['headroom_pct'])}%"]
        if speed:
            row += [number(o.get("tokens_per_s_per_user")), number(o.get("tokens_per_s_total"))]
        if sized:
            row.append({True: WORDING.say(turn, "sizing_phrases.options_table.yes"), False: WORDING.say(turn, "sizing_phrases.options_table.no")}.get(o.get("meets_target"), "—"))
        row += [option_price(turn, o, cur)] + ([money(o["cloud_cost_per_hour"], cur)] if rent else [])
        rows.append(row)
    return table(headers, rows)


def _nominal(turn: Turn, option: dict) -> float:
    """The memory size printed on the box (the estimator compares against usable bytes)."""
    return turn.catalog.gpu(option["gpu_id"]).memory_gb


def memory(turn: Turn) -> str:
    """How much memory a workload takes, and whether it fits the stated card: the take-overs that answer another way
    first, then plan.py's arguments, the estimate (or the limits), and render.py's sentences."""
    model = model_of(turn)
    if model is None:  # "how much memory has the H20" asks about the card, not a workload
        return specs.answer(turn) if turn.entities.gpus else _ask_for_model(turn)
    if methods_view.applies(turn):  # "full, LoRA or QLoRA?": every method asked, each with the cards it takes
        return _methods(turn, model)
    if turn.count_asked and turn.slots.gpus and not _modded_card(turn):  # "and how many if all 910B?": the fewest of that card that hold it
        return recommend(turn)
    if len(set(turn.entities.gpus)) > 1:  # "can the H20 beat the H100 on a 72B?": every named card sized and timed
        compared = compare.route(turn)
        if compared is not None:
            return compared
    task, named = task_of(turn)
    if not named:
        turn.assume(*WORDING.pair("sizing_phrases.memory.serving_inference_since_no_training"))
    args, card = plan.memory_args(turn, model, task)
    if plan.asks_limits(turn, args):
        outcome = turn.call("max_fit", plan.limits_args(turn, args))
        return render.limits(turn, outcome.result) if outcome.ok else turn.error(outcome)
    outcome = turn.call("estimate_memory", args)
    if not outcome.ok:
        return turn.error(outcome)
    answer = render.estimate(turn, outcome.result, args, task, card)
    related(turn, f"memory {turn.t(*TASK_LABEL[task])} {turn.message}")
    return answer
