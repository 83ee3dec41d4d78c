"""A procurement proposal as data: every figure from a tool call, every added figure with its source.

``build_proposal`` takes the need (``need.read_need``) and calls the tools itself: the recommender
for the recommendation and its alternatives, the memory estimator for each option's bar, the
throughput estimator across concurrencies (serving) or the training-time estimator across GPU
counts (training), the TCO calculator with its sensitivity ranking, and the facility arithmetic.
The renderers only lay the result out.
"""

from __future__ import annotations

import datetime as dt
from importlib import metadata
from typing import Any

from pydantic import BaseModel, Field

from advisor.labels import CHINA_STATUS, pick
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.tasks.tco.render import TCO_INPUTS
from advisor.proposal.need import Need
from advisor.proposal.sections import (
    BenchStep,
    ChinaLine,
    MemoryBar,
    PriceLine,
    ProposalInputs,
    SourcedFigure,
    SpeedSeries,
    TrainingSeries,
)
from advisor.proposal.wording import facts, phrase
from advisor.registry import Registry
from knowledge.bilingual import AdvisorError, Text
from tools.cost.price_age import stale_among
from knowledge.catalog import Catalog
from knowledge.tco_defaults import tco_defaults
from tools.cost.tco import TcoResult
from tools.facility import FacilityRequest, FacilityResult, facility_needs
from tools.gpu_specs import CHINA_BUYABLE
from tools.recommend.schema import Recommendation

ALTERNATIVES = 2  # besides the recommendation
TIGHT_HEADROOM_PCT = 15  # below this a long prompt or a bigger batch may not fit: a risk to verify


class Proposal(BaseModel):
    inputs: ProposalInputs
    need: Need
    model_label: Text
    params_b: float
    options: list[dict[str, Any]] = Field(description="The recommendation then its alternatives, as the recommender returned them.")
    over_budget: bool = Field(description="Nothing fits the budget: the options shown are the nearest.")
    none_fits: bool
    recommender_notes: list[Text]
    memory: list[MemoryBar]
    speed: SpeedSeries | None = None
    training: TrainingSeries | None = None
    tco: TcoResult | None = None
    tco_error: Text | None = None
    tco_option: int = Field(0, description="Which option the rent-or-buy comparison is for: the first whose GPU has a cloud price.")
    facility: FacilityResult | None = None
    china: list[ChinaLine]
    risks: list[str] = Field(description="Keys of the risks that apply (wording in text.yaml).")
    bench: list[BenchStep]
    prices: list[PriceLine]
    figures: list[SourcedFigure]
    tool_calls: int

    def figures_summary(self) -> dict[str, Any]:
        """The numbers a rebuild compares: configurations, prices, payback."""
        return {
            "options": [{"config": o["config_label"]["en"], "purchase_cost": o.get("purchase_cost"), "currency": self.need.currency}
                        for o in self.options],
            "payback_month": self.tco.break_even_month if self.tco else None,
            "capex": self.tco.capex if self.tco else None,
            "prices": {p.what.en: p.amount for p in self.prices},
        }  # fmt: skip

    def embedded(self) -> dict[str, Any]:
        """The JSON each format carries: enough to rebuild it and to say what changed."""
        return {"inputs": self.inputs.model_dump(mode="json"), "figures": self.figures_summary()}


class Builder:
    def __init__(self, registry: Registry, catalog: Catalog):
        self.registry = registry
        self.catalog = catalog
        self.calls = 0

    def run(self, name: str, args: dict[str, Any]) -> BaseModel:
        self.calls += 1
        return self.registry.run(name, {k: v for k, v in args.items() if v is not None})

    def attempt(self, name: str, args: dict[str, Any]) -> BaseModel | None:
        """A series point or a side section: a tool that cannot answer leaves it out, never the whole proposal."""
        try:
            return self.run(name, args)
        except AdvisorError:
            return None


def advisor_version() -> str:
    try:
        return metadata.version("gpu-advisor")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def build_proposal(need: Need, inputs: ProposalInputs, registry: Registry, catalog: Catalog) -> Proposal:
    builder = Builder(registry, catalog)
    recommendation: Recommendation = builder.run("recommend_gpus", need.recommend_args)  # type: ignore[assignment]
    options = _tiered_options(recommendation)
    over_budget = bool(options) and options[0].get("within_budget") is False
    top = options[0] if options else None
    proposal = Proposal(
        inputs=inputs,
        need=need,
        model_label=recommendation.model_label,
        params_b=recommendation.params_b,
        options=options,
        over_budget=over_budget,
        none_fits=not options,
        recommender_notes=recommendation.excluded + recommendation.notes,
        memory=[
            bar for i, o in enumerate(options) if (bar := _memory_bar(builder, need, o, recommendation if i == 0 else None)) is not None
        ],
        china=_china(catalog, options, need),
        risks=[],
        bench=[],
        prices=_prices(catalog, options),
        figures=[],
        tool_calls=0,
    )
    if top is not None:
        if need.training:
            proposal.training = _training_series(builder, need, top)
        else:
            proposal.speed = _speed_series(builder, need, top)
        proposal.tco, proposal.tco_error, proposal.tco_option = _tco(builder, need, options)
        proposal.facility = _facility(catalog, top)
    proposal.risks = _risks(proposal)
    proposal.bench = _bench_plan(proposal)
    proposal.figures = _figures(proposal)
    proposal.tool_calls = builder.calls
    return proposal


def _memory_bar(builder: Builder, need: Need, option: dict, recommendation: Recommendation | None) -> MemoryBar | None:
    """The recommender's own estimate for its first option; the estimator for the alternatives."""
    if recommendation is not None and recommendation.estimate is not None:
        estimate = recommendation.estimate
    else:
        args = need.recommend_args
        estimate = builder.attempt("estimate_memory", {
            "model": need.model, "mode": "training" if need.training else "inference", "method": tool_method(need.task.value),
            "precision": args.get("precision"), "kv_precision": args.get("kv_precision"), "context": args.get("context"),
            "batch": args.get("batch"), "gpu": option["gpu_id"], "num_gpus": option["count"], "tp": option["tp"],
            "pp": option.get("pp", 1), "zero_stage": option.get("zero_stage") or None,
        })  # fmt: skip
    if estimate is None:
        return None
    parts = [(item.label, item.value) for item in estimate.items if item.value > 0]
    return MemoryBar(
        option=Text(**option["config_label"]), parts=parts, total_gb=estimate.total_per_gpu_gb, capacity_gb=option["capacity_gb"]
    )


def _speed_series(builder: Builder, need: Need, option: dict) -> SpeedSeries | None:
    args = need.recommend_args
    steps = sorted(set(facts()["concurrency_steps"]) | {need.concurrency.value or 1})
    concurrency, per_user, total = [], [], []
    for users in steps:
        result = builder.attempt("estimate_throughput", {
            "model": need.model, "precision": args.get("precision"), "kv_precision": args.get("kv_precision"),
            "gpu": option["gpu_id"], "num_gpus": option["count"], "tp": option["tp"], "engine": args.get("engine"), "batch": users,
        })  # fmt: skip
        if result is None:
            continue
        concurrency.append(users)
        per_user.append(result.decode_tokens_per_s_per_seq)
        total.append(result.output_tokens_per_s_total)
    if not concurrency:
        return None
    return SpeedSeries(
        option=Text(**option["config_label"]), concurrency=concurrency, per_user=per_user, total=total,
        target=float(need.speed_target.value), target_stated=need.speed_target.stated, users=need.concurrency.value or 1,
    )  # fmt: skip


def _training_series(builder: Builder, need: Need, option: dict) -> TrainingSeries | None:
    steps = sorted(set(facts()["gpu_count_steps"]) | {option["count"]})
    gpus, days = [], []
    for count in steps:
        result = builder.attempt("estimate_training_time", {
            "model": need.model, "tokens": float(need.tokens.value), "gpu": option["gpu_id"], "num_gpus": count,
            "method": tool_method(need.task.value), "currency": need.currency,
        })  # fmt: skip
        if result is not None:
            gpus.append(count)
            days.append(result.wall_clock_days)
    if not gpus:
        return None
    return TrainingSeries(
        gpu_name=option["gpu_name"], gpus=gpus, days=days, deadline_days=need.deadline_days.value,
        tokens=float(need.tokens.value), chosen=option["count"],
    )  # fmt: skip


def _tiered_options(recommendation: Recommendation) -> list[dict[str, Any]]:
    """The recommended tier, then budget and room to grow, each carrying its tier's label and reason; when
    there are fewer tiers (one configuration is several of them, or an objective was asked for), the next
    ranked options make up the alternatives."""
    chosen = [{**tier.option.model_dump(mode="json"), "tier": tier.label.model_dump(), "tier_reason": tier.reason.model_dump()}
              for tier in recommendation.tiers]  # fmt: skip
    taken = {(o["gpu_id"], o["count"]) for o in chosen}
    chosen += [o.model_dump(mode="json") for o in recommendation.options if (o.gpu_id, o.count) not in taken]
    return chosen[: 1 + ALTERNATIVES]


def _servers(option: dict) -> tuple[int, int]:
    """(servers, GPUs per server) as the configuration is bought."""
    units = max(1, int(option.get("units") or 1))
    if option["count"] % units == 0 and option.get("sold_as") in ("board", "server", "pair", "rack"):
        return units, option["count"] // units
    return 1, option["count"]


def _tco(builder: Builder, need: Need, options: list[dict]) -> tuple[TcoResult | None, Text | None, int]:
    """Rent or buy for the recommendation; when its GPU has no cloud price to rent at, for the first alternative that has one."""
    first_error = None
    for index, option in enumerate(options):
        servers, per_server = _servers(option)
        args = {"gpu": option["gpu_id"], "servers": servers, "gpus_per_server": per_server, "currency": need.currency}
        if option.get("price_estimated") and option.get("purchase_cost"):  # no catalog price: the labelled estimate the option was priced at
            args.update(server_price=option["purchase_cost"] / servers, server_price_each=True)
        try:
            result = builder.run("compute_tco", args)
        except AdvisorError as exc:
            first_error = first_error or Text(en=exc.en, zh=exc.zh)
            continue
        return result, first_error, index  # type: ignore[return-value]
    return None, first_error, 0


def _facility(catalog: Catalog, option: dict) -> FacilityResult | None:
    gpu = catalog.gpu(option["gpu_id"])
    if gpu.tdp_w is None:
        return None
    data, sold_as = facts(), option.get("sold_as", "server")
    height = data["rack_units_by_sold_as"].get(sold_as, {}).get("value")
    return facility_needs(FacilityRequest(
        gpu_tdp_w=gpu.tdp_w, gpus=option["count"], units=max(1, int(option.get("units") or 1)),
        units_height_u=None if sold_as in data["not_rack_mounted"] else height,
        whole_rack=sold_as in data["whole_rack"]["sold_as"], liquid_cooled=sold_as in data["whole_rack"]["sold_as"],
        server_power_factor=tco_defaults()["server_power_per_gpu_power"].value, rack_power_kw=data["rack_power_kw"]["value"],
    ))  # fmt: skip


def _china(catalog: Catalog, options: list[dict], need: Need) -> list[ChinaLine]:
    """Where the buyer may be in mainland China (a Chinese question, a 'cn' region, or a part that is export-controlled)."""
    gpus = [catalog.gpu(gpu_id) for gpu_id in dict.fromkeys(o["gpu_id"] for o in options)]
    relevant = need.language == "zh" or need.recommend_args.get("region") == "cn" or any(g.china not in CHINA_BUYABLE for g in gpus)
    if not relevant:
        return []
    lines = []
    for gpu in gpus:
        en, zh = CHINA_STATUS[gpu.china]
        lines.append(ChinaLine(gpu_name=gpu.name, status=Text(en=en, zh=zh), buyable=gpu.china in CHINA_BUYABLE,
                               detail=Text(en=gpu.availability_en, zh=gpu.availability_zh)))  # fmt: skip
    return lines


def _prices(catalog: Catalog, options: list[dict]) -> list[PriceLine]:
    lines = []
    for gpu in (catalog.gpu(gpu_id) for gpu_id in dict.fromkeys(o["gpu_id"] for o in options)):
        for price, key in ((gpu.purchase_price, "price_purchase"), (gpu.cloud_price, "price_cloud")):
            if price is not None:
                lines.append(PriceLine(what=Text(en=phrase(key, "en", gpu=gpu.name), zh=phrase(key, "zh", gpu=gpu.name)), amount=price.amount,
                                       currency=price.currency, date=price.date, age=_age(price.date), note=price.note, source=price.cited))  # fmt: skip
    return lines


def _age(date: str) -> Text | None:
    """A price's age in words once it is older than the stale threshold (knowledge/price_age.yaml): in months, or in years
    from the years threshold on; None for a recent or undated price."""
    stale = stale_among([(Text(en=date, zh=date), date)], dt.date.today())
    if not stale:
        return None
    row = stale[0]
    key, value = ("price_age_years", row.age_years) if row.age_years is not None else ("price_age_months", round(row.age_months))
    return Text(en=phrase(key, "en", age=value), zh=phrase(key, "zh", age=value))


def _risks(p: Proposal) -> list[str]:
    """Which risks apply; each key's wording is in text.yaml."""
    top = p.options[0] if p.options else {}
    checks = {
        "risk_none_fits": p.none_fits,
        "risk_over_budget": p.over_budget,
        "risk_tight_memory": bool(top) and top.get("headroom_pct", 100) < TIGHT_HEADROOM_PCT,
        "risk_speed_target": bool(top) and top.get("meets_target") is False,
        "risk_consumer": bool(top) and bool(top.get("consumer_server")),
        "risk_export": any(not line.buyable for line in p.china),
        "risk_liquid": bool(p.facility and p.facility.liquid_cooled),
        "risk_rack_power": bool(p.facility and p.facility.total_kw > facts()["rack_power_kw"]["value"]),
        "risk_estimates": True,
        "risk_prices": True,
    }
    return [key for key, applies in checks.items() if applies]


def _bench_plan(p: Proposal) -> list[BenchStep]:
    if not p.options:
        return []
    top = p.options[0]
    per_server = _servers(top)[1]
    model = p.model_label.en
    steps = [BenchStep(key="bench_smi", values={})]
    if p.need.training:
        steps.append(BenchStep(key="bench_train", values={"gpus": per_server, "model": model}))
    else:
        users = p.need.concurrency.value or 1
        steps.append(BenchStep(key="bench_serve", values={
            "model": model, "tp": top["tp"], "context": p.need.context.value, "users": users, "prompts": max(100, users * 10),
        }))  # fmt: skip
    if top["count"] > 1:
        steps.append(BenchStep(key="bench_nccl", values={"gpus": per_server}))
    return steps


def _figures(p: Proposal) -> list[SourcedFigure]:
    """The figures the proposal itself added (not the catalog's prices, listed apart), with their sources."""
    data = facts()
    out = []
    if p.facility is not None:
        top = p.options[0]
        row = data["rack_units_by_sold_as"].get(top.get("sold_as", ""))
        if row:
            out.append(_sourced("figure_rack_height", f"{row['value']}U", row))
        if p.facility.racks is not None:
            out.append(_sourced("figure_rack_power", f"{data['rack_power_kw']['value']} kW", data["rack_power_kw"]))
        if p.facility.liquid_cooled:
            out.append(_sourced("figure_whole_rack_cooling", "liquid", data["whole_rack"]))
    if p.speed is not None and not p.speed.target_stated:
        out.append(
            _sourced("figure_speed_assumed", f"{p.speed.target:g} tokens/s", data["speed_target_tokens_per_s"])
        )
    if p.training is not None and not p.need.tokens.stated:
        out.append(_sourced("figure_training_data_assumed", f"{p.training.tokens:.3g} tokens", data["training_tokens"]))
    if p.tco is not None:
        for a in p.tco.assumptions:
            if a.source != "given":
                en, zh = TCO_INPUTS.get(a.key, (a.key, a.key))  # the rent-or-buy answer's own names for its inputs
                out.append(SourcedFigure(label=Text(en=en, zh=zh), value=f"{a.value:g} {a.unit}".strip(),
                                         basis=Text(en=a.source, zh=a.source), url=a.links[0] if a.links else ""))  # fmt: skip
    return out


def _sourced(label_key: str, value: str, row: dict) -> SourcedFigure:
    source = row.get("source", {})
    return SourcedFigure(label=Text(en=phrase(label_key, "en"), zh=phrase(label_key, "zh")), value=value, basis=Text(**row["basis"]),
                         url=source.get("url", ""), title=source.get("title", ""), date=str(source.get("date", "")))  # fmt: skip


def today() -> str:
    return dt.date.today().isoformat()


def in_language(text: Text | dict, language: str) -> str:
    value = text if isinstance(text, Text) else Text(**text)
    return pick(language, value.en, value.zh)
