"""An API bill against self-hosting the same traffic ("we send 200M tokens a day to an API: would our own GPUs be
cheaper?"), asked in either language.

The API side: the daily tokens × a dated, sourced price per million (the API named, else the model's own entry),
or no price when none is published (then the answer says what price self-hosting beats). The self-hosting side:
the fewest cards that serve the model (serving estimator, full load), as many deployments as the average traffic
needs at the planned load, rented for every hour at the tier a buyer rents from. Verdict first."""

from __future__ import annotations

import datetime as dt

from advisor.markdown import money, number, table
from advisor.offline.tasks.tco import plan, price_dates, rent_prices, token_price
from advisor.offline.tasks.tco.spans import span
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.api_prices import ApiPrice, api_prices
from tools.cost.money import DEFAULT_USD_TO_CNY, USD_TO_CNY_SOURCE, convert
from tools.cost.price_age import is_stale
from tools.cost.api_vs_self_host import DAYS_PER_MONTH, ApiVsSelfHostRequest, api_vs_self_host

WORDING = Wording("tco", "api_bill")
JOINERS = Wording("tco", "joiners")
COMPARABLE_MODEL = "llama-3.3-70b"  # a closed API (GPT-4o) is weighed against the open model most teams replace it with
PLANNED_LOAD = 0.5  # average traffic is about half of what peaks need: dedicated GPUs are sized for the peaks
LARGER_GPU = "h200-sxm"  # a model that no H100 server holds (DeepSeek-V3) is served on the next larger card


def _price(turn: Turn, model: str | None) -> ApiPrice | None:
    usage = turn.ask.api_usage
    return api_prices().by_id(usage.api_named if usage else None) or api_prices().for_model(model)


def answer(turn: Turn, gpu: str, currency: str) -> str:
    usage = turn.ask.api_usage
    named = turn.model_reference()
    price = _price(turn, named)
    model = named or (price.models[0] if price and price.models else COMPARABLE_MODEL)
    price = price or api_prices().for_model(model)  # no API named and no model: the price of the model compared against
    if named is None:
        turn.assume(*WORDING.both("comparable", model=turn.catalog.model(model).name))
    gpus, speed = token_price.deployment(turn, model, gpu)
    if speed is None and not turn.slots.gpus:
        gpu = LARGER_GPU
        gpus, speed = token_price.deployment(turn, model, gpu)
    gpu_name = turn.catalog.gpu(gpu).name
    if speed is None:
        return WORDING.say(turn, "does_not_run", model=model, gpu=gpu_name)
    market = turn.call("rental_prices", plan.market_args(turn, gpu, currency, gpus))
    tiers = market.result["tiers"] if market.ok else []
    chosen = next((t for t in tiers if t["tier"] == (market.result["fair_tier"] if market.ok else None)), None) or (min(tiers, key=lambda t: t["low"]) if tiers else None)
    estimate = _estimated_rate(turn, gpu, gpus, currency) if chosen is None and plan.stated_rate(turn, currency) is None else None
    if chosen is None and estimate is None and plan.stated_rate(turn, currency) is None:
        return WORDING.say(turn, "no_rent", gpu=gpu_name)
    model_name = turn.text(speed["model_label"])
    prompt, output = speed.get("prompt_tokens", 1024), speed.get("output_tokens", 256)
    share = output / (prompt + output)
    load = turn.slots.utilisation or PLANNED_LOAD
    rate = (chosen["low"] + chosen["high"]) / 2 if chosen is not None else estimate[0] if estimate is not None else 0.0
    stated = plan.stated_rate(turn, currency)  # the rent the user pays prices self-hosting; the tier only when none is said
    tier_name = (WORDING.say(turn, "your_rate") if stated is not None else turn.text(chosen["name"]) if chosen is not None
                 else WORDING.say(turn, "estimated.tier"))  # fmt: skip
    rate = stated if stated is not None else rate
    # cards owned or bought for this: the hour at what owning them costs, not a rent (a stated rent still prices it)
    owned = _estimated_rate(turn, gpu, gpus, currency) if stated is None and plan.self_hosts_owned(turn) else None
    if owned is not None:
        rate, tier_name, estimate = owned[0], WORDING.say(turn, "owned_tier"), None
    owned_line = WORDING.say(turn, "owned_basis", basis=owned[1], rate=money(owned[0], currency)) if owned is not None else ""
    # a volume said with no period ("200M tokens in all") is taken as a month's, said in the lead with the verdict at a day's
    total = usage.tokens_no_period if usage is not None and usage.tokens_per_day is None else None
    no_volume = (usage is None or usage.tokens_per_day is None) and total is None
    said = turn.slots.api_price  # the user's own API price per million tokens replaces the price book's
    said = said if said is not None and said.currency in ("USD", "CNY") else None
    if no_volume and price is None and said is None:
        return WORDING.say(turn, "no_volume", model=model_name)
    api_in, api_out = (price.input_per_m, price.output_per_m) if price else (0.0, 0.0)
    quoted_in = price.currency if price else "USD"  # each price in the currency it is published in
    ratio = api_prices().output_ratio(price)
    if said is not None:  # one price said: the input price, output at the sourced ratio (said in the lead, see _said_split)
        api_in, api_out, quoted_in = said.amount, said.amount * ratio, said.currency
    fx = convert(1.0, quoted_in, currency, DEFAULT_USD_TO_CNY)
    # no volume said: one deployment's traffic at the planned load, so the per-million figures and the break-even stand
    per_day = (speed["output_tokens_per_s_total"] * load * 86_400 / share if no_volume
               else usage.tokens_per_day if total is None else total / DAYS_PER_MONTH)  # fmt: skip

    def weighed(tokens_per_day: float):  # noqa: ANN202
        return api_vs_self_host(ApiVsSelfHostRequest(
            tokens_per_day=tokens_per_day, output_share=share, api_input_per_m=api_in * fx, api_output_per_m=api_out * fx,
            deployment_output_tokens_per_s=speed["output_tokens_per_s_total"], gpus_per_deployment=gpus, price_per_gpu_hour=rate, planned_load=load))  # fmt: skip

    result = weighed(per_day)
    split = _said_split(turn, said, price, ratio, share, result, currency) if said is not None else None
    if no_volume:  # "per million tokens, which is cheaper?": the price of a million each way first, the volume only moves the bill
        body = _per_million(turn, None if said is not None else price, result, model_name, gpus, gpu_name, tier_name, rate, load, currency, split)
        if owned_line:
            lead, _, rest = body.partition("\n\n")
            rented = token_price.rented_beside(turn, tiers, gpus, speed["output_tokens_per_s_total"], currency) if tiers else ""
            return "\n\n".join(filter(None, [lead, owned_line, rest, rented]))
        if estimate is None or stated is not None:
            return body
        lead, _, rest = body.partition("\n\n")
        flip = _flip_line(turn, estimate, rate, result.api_per_m_blended / result.self_host_per_m_at_load, gpu_name, currency)
        return "\n\n".join(filter(None, [lead + JOINERS.say(turn, "sentence_separator") + flip, rest]))
    values = {"tokens": number(per_day / 1e6), "model": model_name, "gpus": result.gpus, "gpu": gpu_name, "deployments": result.deployments,
              "own": money(result.self_host_monthly, currency), "api": money(result.api_monthly, currency), "load": number(load * 100),
              "tier": tier_name, "rate": money(rate, currency), "per_m": money(result.self_host_per_m_at_load, currency),
              "saving": money(abs(result.saving_monthly), currency), "per_deployment": gpus}  # fmt: skip
    priced_lead = price is not None or said is not None
    if not priced_lead:
        lead = WORDING.say(turn, "lead.no_price", **values)
    else:
        api_name = split[0] if split is not None else turn.text(price.label)
        values.update(api_name=api_name, blended=money(result.api_per_m_blended, currency))
        lead = WORDING.say(turn, f"{'lead_owned' if owned is not None else 'lead'}.{result.verdict}", **values)
    if estimate is not None and stated is None:  # the rent is an estimate: said in the lead, with how far it must move to flip
        lead += JOINERS.say(turn, "sentence_separator") + _flip_line(turn, estimate, rate, result.api_monthly / result.self_host_monthly if priced_lead else None,
                                               gpu_name, currency)  # fmt: skip
    if total is not None:  # the period assumed, in the lead, and the verdict (or, unpriced, the bill) if the volume is a day's
        day = weighed(total)
        key = "period.month" if price is not None or said is not None else "period.month_unpriced"
        lead += JOINERS.say(turn, "sentence_separator") + WORDING.say(turn, key, total=number(total / 1e6), tokens=values["tokens"],
                                              verdict=WORDING.say(turn, f"period.verdict.{day.verdict}"), gpus=day.gpus, gpu=gpu_name,
                                              own=money(day.self_host_monthly, currency), api=money(day.api_monthly, currency))  # fmt: skip
    reasons = [WORDING.say(turn, "sizing", **values, speed=number(speed["output_tokens_per_s_total"]), needed=number(result.output_tokens_per_s_needed),
                           share=number(share * 100), prompt=prompt, output=output)]  # fmt: skip
    priced = price is not None or said is not None
    if priced and not no_volume:  # the cost of a million tokens at the volume said, not only at the planned load
        reasons.insert(0, WORDING.say(turn, "at_volume", **values, busy=number(result.utilisation_at_volume_pct, 1),
                                      per_m_volume=money(result.self_host_per_m_at_volume, currency)))  # fmt: skip
    if result.break_even_tokens_per_day is not None and priced:
        reasons.append(WORDING.say(turn, "break_even", volume=number(result.break_even_tokens_per_day / 1e6), per_m=values["per_m"], blended=values["blended"]))
    elif priced:
        reasons.append(WORDING.say(turn, "never", per_m=values["per_m"], blended=values["blended"]))
    # what could change the verdict, and an offer to redo it with only the figures the user has not given
    missing = [key for key, given in (("api_price", said is not None), ("gpu_rate", stated is not None), ("load", turn.slots.utilisation is not None)) if not given]
    ask = WORDING.say(turn, "redo", figures=JOINERS.say(turn, "figures_joiner").join(WORDING.say(turn, f"redo_figure.{key}") for key in missing)) if missing else ""
    reasons.append(WORDING.say(turn, "caveats") + ask)
    rows = [[turn.text(t["name"]), f"{money(t['low'], currency)}–{money(t['high'], currency)}",
             money(result.gpus * 730 * t["low"], currency) + "–" + money(result.gpus * 730 * t["high"], currency)] for t in tiers]  # fmt: skip
    headers = [WORDING.say(turn, f"table.{key}") for key in ("tier", "rate", "monthly")]
    rent_table = "**" + WORDING.say(turn, "table.title", gpus=result.gpus, gpu=gpu_name) + "**\n\n" + table(headers, rows) if rows else ""
    parts = [lead, owned_line, rent_prices.other_market_line(turn, market.result) if market.ok and stated is None and owned is None else "", *reasons, rent_table]
    if split is not None:
        parts.insert(1, split[1])
        parts.append(WORDING.say(turn, "source_yours", price=money(said.amount, said.currency)))
    elif price is not None:
        parts.append(_source(turn, price, turn.text(price.label), currency))
        parts.append(_stale(turn, price))
    parts = [part for part in parts if part]
    return "\n\n".join(parts)



def _estimated_rate(turn: Turn, gpu: str, gpus: int, currency: str) -> tuple[float, str] | None:
    """No rent tier prices the card in the buyer's market: the hour at what owning it costs, busy or not (the price
    book's dated purchase price or its sourced estimate, power and upkeep), with the basis in words; None only when
    no price of the card exists at all."""
    owned = plan.owning_hour(turn, gpu, gpus, currency, utilisation_pct=100,
                             site_region=turn.ask.site_region or ("cn" if turn.china_buyer else None))  # fmt: skip
    if not owned.ok or not owned.result.get("own_cost_per_used_gpu_hour"):
        return None
    r = owned.result
    return r["own_cost_per_used_gpu_hour"], WORDING.say(turn, "estimated.basis", span=span(r["horizon_months"]))


def _flip_line(turn: Turn, estimate: tuple[float, str], rate: float, api_over_own: float | None, gpu_name: str, currency: str) -> str:
    """The rent is an estimate: where it comes from and, when an API price is weighed, the GPU rate at which the verdict
    flips (self-hosting's bill is proportional to the rate) and how far that is from the estimate."""
    said = WORDING.say(turn, "estimated.lead", gpu=gpu_name, rate=money(rate, currency), basis=estimate[1])
    if api_over_own is None:
        return said
    flip = rate * api_over_own
    key = "estimated.flip_up" if flip >= rate else "estimated.flip_down"
    return said + JOINERS.say(turn, "sentence_separator") + WORDING.say(turn, key, flip=money(flip, currency), move=number(abs(flip / rate - 1) * 100, 0))


def _said_split(turn: Turn, said, price: ApiPrice | None, ratio: float, share: float, result, currency: str) -> tuple[str, str]:  # noqa: ANN001
    """A price said as one number: how it was split (the input price, output at the ratio of the entry for the API or
    model, else the first-party default; blended at the requests' token mix), for the lead, and the line saying whether
    the verdict holds if that number is already the all-in price of input and output alike."""
    basis = (WORDING.say(turn, "one_price.as_billed", api_name=turn.text(price.label)) if price is not None
             else WORDING.say(turn, "one_price.default", date=api_prices().one_price.source.date))  # fmt: skip
    values = {"price": money(said.amount, said.currency), "ratio": number(ratio, 2), "basis": basis,
              "input_share": number((1 - share) * 100), "output_share": number(share * 100)}  # fmt: skip
    flat = convert(said.amount, said.currency, currency, DEFAULT_USD_TO_CNY)  # input and output at the one price
    self_host = result.self_host_per_m_at_volume  # the volume said, or one deployment at the planned load when none is
    cheaper_now, cheaper_flat = result.api_per_m_blended <= self_host, flat <= self_host
    key = "one_price.holds" if cheaper_now == cheaper_flat else "one_price.turns_api" if cheaper_flat else "one_price.turns_self_host"
    return WORDING.say(turn, "one_price.split", **values), WORDING.say(turn, key, price=values["price"], flat=money(flat, currency), own=money(self_host, currency))


def _per_million(turn: Turn, price: ApiPrice | None, result, model_name: str, gpus: int, gpu_name: str, tier_name: str, rate: float,  # noqa: ANN001
                 load: float, currency: str, split: tuple[str, str] | None = None) -> str:
    """No daily volume: self-hosting's cost per million tokens at the planned load against the API's blended price (the
    user's own when said: ``price`` None), and the daily volume from which one deployment pays for itself; no volume
    is invented for a monthly bill, it is asked only as what would size the bill."""
    api_name = turn.text(price.label) if price is not None else split[0] if split is not None else WORDING.say(turn, "your_api_price")
    values = {"model": model_name, "gpus": gpus, "gpu": gpu_name, "per_m": money(result.self_host_per_m_at_load, currency),
              "blended": money(result.api_per_m_blended, currency), "api_name": api_name, "load": number(load * 100),
              "tier": tier_name, "rate": money(rate, currency)}  # fmt: skip
    cheaper = "self_host" if result.self_host_per_m_at_load < result.api_per_m_blended else "api"
    lead = WORDING.say(turn, f"per_million.{cheaper}", **values)
    reasons = [split[1]] if split is not None else []
    if result.break_even_tokens_per_day is not None:
        reasons.append(WORDING.say(turn, "break_even", volume=number(result.break_even_tokens_per_day / 1e6), per_m=values["per_m"], blended=values["blended"]))
    reasons.append(WORDING.say(turn, "per_million.volume"))
    if price is None:  # the user's own price: nothing of ours to cite or age
        return "\n\n".join([lead, *reasons])
    return "\n\n".join(filter(None, [lead, *reasons, _source(turn, price, values["api_name"], currency), _stale(turn, price)]))


def _source(turn: Turn, price: ApiPrice, api_name: str, currency: str) -> str:
    """The dated page of the API price used, in the currency it is published in; an answer in the other currency
    says the conversion (rate and its date), since no dated price list in that currency is on file."""
    cited = WORDING.say(turn, "source", api_name=api_name, input=money(price.input_per_m, price.currency), output=money(price.output_per_m, price.currency),
                        date=price.source.date, title=price.source.title, url=price.source.url)  # fmt: skip
    if currency == price.currency:
        return cited
    rate = USD_TO_CNY_SOURCE
    return cited + " " + WORDING.say(turn, f"converted.to_{currency.lower()}", rate=number(DEFAULT_USD_TO_CNY, 2), date=rate.date, url=rate.url)


def _stale(turn: Turn, price: ApiPrice) -> str:
    """An API price older than six months is flagged with its age (API prices fall often)."""
    today = dt.date.today()
    if not is_stale(price.source.date, today):
        return ""
    return WORDING.say(turn, "stale", date=price.source.date, age=price_dates.age_of(turn, price.source.date))
