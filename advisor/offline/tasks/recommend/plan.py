"""The recommend task's plan: what a conversation asks of ``recommend_gpus`` (model, task, precision, budget, region,
the stated cards or their memory, the cards on hand, serving load, the objective) with the assumptions those choices rest
on, and the yes/no questions the answer asks of the conversation (a modded card, the cards on hand). No sentences beyond
an assumption; the answer's words are render.py's, and recommend.py runs plan → recommend_gpus → render."""

from __future__ import annotations

import datetime as dt

from advisor.markdown import number
from advisor.offline.tasks.recommend import mainland
from advisor.offline.tasks.recommend.recommend_lines import value_for_money, workloads_of
from advisor.offline.tasks.serving.engines import engine_of
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.serving.serving_card import stated_card
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import gpus_on_hand, model_of, precision_for

WORDING = Wording("recommend", "recommend")
PRICES = Wording("recommend", "market")  # the market a recommendation leans on

# The understanding layer's objective values (entities.yaml) → the recommender's ranking.
OBJECTIVES = {"cheapest": "cheapest", "fastest": "fastest", "cheapest_cloud": "cloud", "least_power": "power", "most_memory": "memory"}


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
        "precision_default": "bf16" if turn.ask.quality_first else "practice",  # no format named: the card's usual one, unless quality first
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
    if rent_leads(turn) and args["objective"] in (None, "cheapest"):  # "we only use the cloud", "cloud is fine": ranked by rent
        args["objective"] = "cloud"
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
    if turn.ask.no_server_room:  # "we have no server room": machines that stand in an office, within its power, no rack server
        args["office_site"] = True
        turn.assume(*WORDING.pair("sizing_phrases.recommend_args.office_machines_only"))
    if s.keeps_to("datacenter_only"):
        allowed = args["gpus"] or [g.id for g in turn.catalog.gpus]
        args["gpus"] = [g for g in allowed if turn.catalog.gpu(g).segment == "datacenter"]
        turn.assume(*WORDING.pair("sizing_phrases.recommend_args.data_center_accelerators_only_geforce"))
    return args


def rent_leads(turn: Turn) -> bool:
    """Renting answers first: the user never buys ("we only use the cloud"), or says renting is fine ("cloud is fine", "happy to
    rent") and speaks of no purchase; a purchase then follows as the alternative, not the lead."""
    return turn.ask.rents_only or (turn.ask.renting_ok and not turn.ask.buying and not turn.ask.holds_cards)


def on_hand(turn: Turn, option: dict) -> bool:
    """The option is the cards the user says they have (that GPU, no more of them than they have)."""
    if not turn.ask.holds_cards:  # "buy or rent 8 H100s?", "we have quotes for 2x H100": cards not said to be the user's
        return False
    have = gpus_on_hand(turn)
    return bool(have) and option["gpu_id"] in {turn.catalog.gpu(g).id for g in turn.slots.gpus} and option["count"] <= have


def uses_owned(turn: Turn, option: dict) -> bool:
    """The option is cards the user has, and the question is not how many of them it would take ("how many A6000s instead?")."""
    return on_hand(turn, option) and not turn.count_asked


def modded_card(turn: Turn) -> bool:
    """The one named card has a memory no catalog variant has (a modded 48 GB 4090): the memory estimate sizes it."""
    return bool(turn.slots.gpus) and stated_card(turn, turn.slots.gpus[0]).memory_gb is not None


# ---- which lines and answers a recommendation's question calls for (the writers only word them) ----
NAMED_METHODS = {"lora", "qlora", "full_finetune", "pretrain", "train"}  # a method said outright is sized as said
MIN_VENDORS = 2  # one vendor named is a recommendation within it, not a comparison
TIMED = ("pretrain", "full_finetune")  # the methods whose compute a token count times


def full_alongside(turn: Turn, task: str) -> bool:
    """Fine-tuning asked with no method, a one-off budget given, and LoRA sized by default: full fine-tuning is weighed
    beside it (full_alongside.lines)."""
    budget = turn.slots.budget
    workloads = set(turn.slots.workloads)
    return (task == "lora" and "finetune" in workloads and not workloads & NAMED_METHODS
            and budget is not None and budget.per in ("once", "all"))


def compares_vendors(turn: Turn) -> bool:
    """Two or more vendors named, and a workload to size for: a row per vendor (vendor_rows)."""
    return len(turn.ask.vendors_named) >= MIN_VENDORS and model_of(turn) is not None


def weighs_premium_of_parts(turn: Turn) -> bool:
    """"Is the H200 worth the premium over the H100?" with two options to weigh (premium_view)."""
    return turn.ask.weighs_premium and len(compare.options(turn)) >= 2


def times_compute(turn: Turn, task: str) -> bool:
    """A pretraining or full fine-tune with its tokens given: the compute, days and rent of the run (compute_view)."""
    return task in TIMED and turn.slots.tokens is not None


def claims_between_parts(turn: Turn) -> bool:
    """A claim that one of two options matches, beats or replaces the other (claim_view)."""
    return turn.ask.weighs_claim and len(compare.options(turn)) >= 2


FAR_BEYOND = 3.0  # a claimed multiple 3x the best like-for-like ratio comes from a benchmark's setup, not from the parts' figures


def claim_far_beyond_figures(turn: Turn) -> bool:
    """"GB200 30x an H100, true?": the multiple claimed is far beyond every like-for-like ratio of the parts named (dense
    BF16, memory, bandwidth, card for card and with the counts stated), so it comes from a benchmark's setup (a rack against
    a server, FP4 against FP8): the card on vendor claims says where such a figure comes from before any spec check (the route
    row ``vendor_claim_card``; claim_view only words the check)."""
    claimed, pairs = turn.ask.claimed_multiple, compare.options(turn)[:2]
    if claimed is None or claimed <= 1 or len(pairs) < 2:
        return False
    (first, first_count), (second, second_count) = pairs
    a, b = turn.catalog.find_gpu(first), turn.catalog.find_gpu(second)
    if a is None or b is None:
        return False
    count = (first_count or 1) / (second_count or 1)
    pairs_of_figures = [(a.bf16_tflops, b.bf16_tflops), (a.memory_gb, b.memory_gb), (a.bandwidth_gbs, b.bandwidth_gbs)]
    ratios = [x * count / y for x, y in pairs_of_figures if x and y]
    best = max((max(r, 1 / r) for r in ratios), default=None)
    return best is not None and claimed >= FAR_BEYOND * best
