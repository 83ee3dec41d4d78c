"""Order the options by the user's objective; a budget, when given, always comes first."""

from __future__ import annotations

import math

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.cost.money import SYMBOLS
from tools.recommend.schema import Option, RecommendRequest

TEXT = shipped("recommend_text.yaml")


def _unknown_last(value: float | None, sign: int = 1) -> tuple[bool, float]:
    return value is None, sign * (value or 0.0)


SPEED_STEP = 1.05  # speeds within ~5% of each other tie (the estimate is ±30%): the smaller, cheaper configuration wins


def _speed(option: Option, task: str) -> float | None:
    value = option.tokens_per_s_total if task == "inference" else option.total_tflops
    return value if value and value > 0 else None


def speed_step(option: Option, task: str, fastest: float | None) -> int | None:
    """How many 5% steps slower than the fastest option: 0 for the fastest and all within 5% of it."""
    value = _speed(option, task)
    if value is None or fastest is None:
        return None
    return math.floor(math.log(fastest / value) / math.log(SPEED_STEP) + 1e-9)


def fills_budget(request: RecommendRequest) -> bool:
    """A one-off purchase budget and no other ranking asked for: the recommendation spends it on speed and headroom."""
    return request.budget is not None and request.budget_per == "once" and request.objective is None


def objective_key(option: Option, request: RecommendRequest, fastest: float | None = None) -> tuple:
    price = _unknown_last(option.purchase_cost)
    cloud = _unknown_last(option.cloud_cost_per_hour)
    tail = (option.count, -option.headroom_pct)
    if request.objective in ("fastest", "budget"):  # budget: the most capable configuration the money buys
        return (*_unknown_last(speed_step(option, request.task, fastest)), option.count, *price)
    if request.objective == "cloud":
        return (*cloud, *price, *tail)
    if request.objective == "power":
        return (*_unknown_last(option.power_w), *price, *tail)
    if request.objective == "memory":
        per_price = option.count * option.capacity_gb / option.purchase_cost if option.purchase_cost else None
        return (*_unknown_last(per_price, -1), *price, *tail)
    if request.objective == "value":
        return (*_unknown_last(option.tokens_per_s_per_10k, -1), *price, *tail)
    return (*price, *cloud, *tail)  # cheapest, china


def _affordable(option: Option) -> bool:
    """Within the budget and running the job as asked (the load met, when one is given)."""
    return bool(option.within_budget) and option.meets_target is not False


def rank(options: list[Option], request: RecommendRequest) -> list[Option]:
    """Within budget first (when anything is), then unknown price, then over; configurations missing the load last."""
    # the budget splits the list only when something within it runs the job as asked: a configuration that fits the
    # money but misses the load never leads over one that works (the answer says first that the budget is short)
    partition = request.budget is not None and any(_affordable(o) for o in options)
    fastest = max((v for o in options if (v := _speed(o, request.task)) is not None), default=None)

    def key(option: Option) -> tuple:
        budget = {True: 0, None: 1, False: 2}[option.within_budget] if partition else 0
        # a configuration missing the load goes after those meeting it; the ones serving the most users first
        target = (1, -(option.max_users_at_target or 0)) if option.meets_target is False else (0, 0)
        return (budget, *target, option.consumer_server, *objective_key(option, request, fastest))

    return sorted(options, key=key)


def money_text(amount: float, currency: str) -> str:
    return f"{SYMBOLS.get(currency, '')}{amount:,.0f}"


def apply_budget(options: list[Option], request: RecommendRequest, currency: str) -> tuple[list[Option], list[Text], list[Text]]:
    """(options, excluded, notes): objective 'budget' keeps only what fits it, or the closest when nothing does."""
    if request.budget is None or not options:
        return options, [], []
    budget = money_text(request.budget, currency)
    within = [o for o in options if _affordable(o)]
    if within and request.objective == "budget":
        left = len(options) - len(within)
        excluded = [TEXT.text("budget.left_out_one" if left == 1 else "budget.left_out_many", left=left, budget=budget)] if left else []
        return within, excluded, []
    if within:
        return options, [], []
    if request.budget_per != "once":  # a running budget nothing rents within: the answer says so with the monthly rent
        return sorted(options, key=lambda o: (o.meets_target is False, o.rent_per_month is None, o.rent_per_month or 0.0, o.count)), [], []
    cheapest = min((o.purchase_cost for o in options if o.purchase_cost is not None), default=None)
    closest = TEXT.text("budget.cheapest", cost=money_text(cheapest, currency)) if cheapest is not None else TEXT.text("budget.no_price")
    listed = TEXT.text("budget.closest_listed") if request.objective == "budget" else Text(en="", zh="")
    note = TEXT.text("budget.cannot_meet", budget=budget, closest=closest, listed=listed)
    if request.objective in ("budget", None):  # nothing within it: the closest is the cheapest that works, priced first
        options = sorted(options, key=lambda o: (o.meets_target is False, o.purchase_cost is None, o.purchase_cost or 0.0, o.count))
    return options, [], [note]
