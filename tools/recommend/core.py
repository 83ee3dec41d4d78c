"""Which GPU, how many, and how to split the work: ranked configurations as they are sold.

For each GPU the smallest tensor/pipeline group that holds the model is found with the memory
estimator; the configuration then grows through the counts the part is sold in (HGX/OAM boards,
PCIe servers, NVL72 racks, one Mac) until it holds the model and, when a concurrency or speed
target is given, serves that load according to the throughput estimator. The options are ranked
by the user's objective, a budget always first.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable
from typing import NamedTuple

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU, Price
from knowledge.price_estimates import price_estimates
from knowledge.servers import ServerQuote, server_data
from knowledge.serving_precision import serving_precision
from knowledge.serving import ServingData
from knowledge.wording import shipped
from knowledge.traffic import chat_floor
from tools.checks import INPUT_NAMES, check_range
from tools.cost.money import Currency, check_exchange_rate, convert, normalize_currency
from tools.cost.price_age import gpu_dates, machine_dates, stale_among
from tools.cost.tco_model import HOURS_PER_MONTH
from tools.memory.constants import GB, GIB, MAX_BATCH, TIGHT_FRACTION
from tools.memory.estimator import Footprint, estimate_memory, footprint
from tools.memory.refit import INT4_FORMAT
from tools.memory.schema import MemoryEstimate, MemoryRequest
from tools.memory.verdict import unit_note, verdict
from tools.models.resolve import resolve_model
from tools.recommend.configs import SERVER_GPUS, Layout, config_label, inference_layout, serving_layouts, sold_as, sold_counts, sold_reasons, usable_fraction
from tools.recommend.notes import Withheld, buying_outside_china, candidates, china_buyer, notes, withheld_line
from tools.recommend.price_estimate import PriceRange, card_price
from tools.recommend.rank import apply_budget, fills_budget, money_text, rank
from tools.recommend.schema import BudgetFallback, FallbackChange, Option, Recommendation, RecommendRequest
from tools.recommend.speed import Speed, estimate_speed, load, meets, sized_by_speed
from tools.recommend.tiers import current_part, pick_tiers, standard_part, tiers_first
from tools.recommend.workloads import most_demanding
from tools.serving.setup import ENGINE_LABELS

TEXT = shipped("recommend_text.yaml")

MAX_COUNT = 512
MAX_TARGET_TOKENS_PER_S = 10_000
GROUPS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


class Fitted(NamedTuple):
    """Where a configuration holds the model: the part and its layout (its full estimate is built only when shown)."""

    gpu: GPU
    layout: Layout


Built = tuple[Option, Fitted]


def recommend_gpus(request: RecommendRequest, catalog: Catalog, serving: ServingData) -> Recommendation:
    currency = normalize_currency(request.currency)
    request, demands = most_demanding(request, catalog)
    _check(request)
    request, floor_note = _with_speed_floor(request)
    gpus, excluded, withheld = candidates(request, catalog)
    rivals = _rivals(withheld, catalog)  # sized beside the parts sold to this buyer (one pass shares the footprints)
    built = _build(request, catalog, serving, currency, gpus + rivals)
    grown = _filled(request, catalog, serving, currency, gpus + rivals, built) if fills_budget(request) else []
    built, built_rivals = _split(built, rivals)
    grown, grown_rivals = _split(grown, rivals)
    excluded = excluded + _withheld_lines(request, catalog, withheld, built + grown, built_rivals + grown_rivals)
    built += grown  # a budget larger than the job: what the money buys of each part, up to one full server
    fitted = {id(option): where for option, where in built}
    ranked = rank([option for option, _ in built], request)
    working = [o for o in ranked if o.meets_target is not False]
    monthly = monthly_budget(request)
    spend = (lambda o: o.rent_per_month) if monthly is not None else (lambda o: o.purchase_cost)  # what the budget is set against
    short = request.budget is not None and any(spend(o) is not None for o in working) and not any(o.within_budget for o in working)
    ranked, left_out, budget_notes = apply_budget(ranked, request, currency)
    tiers = pick_tiers(ranked, request, catalog, server_data())
    spare = {id(option) for option, _ in grown} - {id(tier.option) for tier in tiers}
    ranked = [o for o in ranked if id(o) not in spare]  # one configuration per part, unless a tier is the grown one
    if request.objective is None:  # no ranking asked for: the tiers lead, the rest follow cheapest first
        ranked = tiers_first(ranked, tiers)
    top = ranked[: request.top]
    # the one full estimate (items, notes, assumptions): the top option's; the ranking read only footprints
    estimate = _memory(_sized_request(request, top[0]), catalog, fitted[id(top[0])].layout, fitted[id(top[0])].gpu, strict=True) if top else None
    first = estimate or (_memory(_sized_request(request, built[0][0]), catalog, built[0][1].layout, built[0][1].gpu, strict=True) if built else None) \
        or _memory(request, catalog, Layout(1, 1, 1), None, strict=True)
    return Recommendation(
        model_id=first.model_id,
        model_name=first.model_name,
        model_label=first.model_label,
        params_b=first.params_b,
        task=request.task,
        objective=request.objective,
        currency=currency,
        options=top,
        tiers=tiers,
        estimate=estimate,
        excluded=excluded + left_out,
        notes=notes(request, gpus, top) + budget_notes + floor_note + _practice_notes([*top, *(tier.option for tier in tiers)], catalog)
        + _yuan_notes(request, currency, [*top, *(tier.option for tier in tiers)], catalog),
        speed_floor=request.tokens_per_s_per_user if floor_note else None,
        stale_prices=stale_among(
            [dated for option in [*(tier.option for tier in tiers), *top] for dated in _price_dates(option, catalog, request)],
            dt.date.fromisoformat(request.today) if request.today else None,
        ),
        unit_note=unit_note(catalog.gpu(top[0].gpu_id) if top else None),
        workloads=demands,
        budget_short=short,
        cheapest_cost=min((o.purchase_cost for o in working if o.purchase_cost is not None), default=None),
        cheapest_rent_per_hour=min((o.cloud_cost_per_hour for o in working if o.cloud_cost_per_hour is not None), default=None),
        fallback=_fallback(request, catalog, serving, currency, gpus) if short else None,
        budget_months_to_buy=_months_to_buy(tiers[0].option if tiers else (top[0] if top else None), monthly),
    )


def _rivals(withheld: list[Withheld], catalog: Catalog) -> list[GPU]:
    """The withheld parts that could lead a tier in place of one sold to this buyer: parts a buyer would order today
    (older or exotic barred parts are no loss worth a line, and not sizing them keeps the answer's time)."""
    data = server_data()
    return [g for group in withheld for g in group.gpus if standard_part(g, data) and current_part(g, catalog, data)]


def _split(built: list[Built], rivals: list[GPU]) -> tuple[list[Built], list[Built]]:
    ids = {g.id for g in rivals}
    return [b for b in built if b[0].gpu_id not in ids], [b for b in built if b[0].gpu_id in ids]


def _withheld_lines(request: RecommendRequest, catalog: Catalog, withheld: list[Withheld], built: list[Built], rivals: list[Built]) -> list[Text]:
    """The parts the buyer's market rules out that would otherwise have been offered (a tier, or the first option of an
    asked ranking), each group's line naming only those: a mainland buyer is not handed the list of every barred part."""
    if not rivals:
        return []
    every = rank([o for o, _ in built + rivals], request)
    offered = [t.option for t in pick_tiers(every, request, catalog, server_data())] + every[:1] * (request.objective is not None)
    ids = {o.gpu_id for o in offered}
    return [line for group in withheld if (line := withheld_line(group, [g for g in group.gpus if g.id in ids])) is not None]


def _price_dates(option: Option, catalog: Catalog, request: RecommendRequest) -> list[tuple[Text, str]]:
    """Every dated figure an option's prices stand on: its card price (or the estimate's newest anchor), the machine
    around the cards (its server class's host, or a whole-server quote), and the cloud rate when one is shown."""
    gpu = catalog.gpu(option.gpu_id)
    data = server_data()
    server = next((c for c in data.classes if c.id == option.server_class), None)
    quote = data.default_quote(gpu, option.count // option.server_count, server) if option.server_count else None
    card = card_price(gpu, "USD", request.usd_to_cny) if quote is None else None  # its date, whatever the currency
    return [*gpu_dates(gpu, card.date if card else None, option.cloud_cost_per_hour is not None),
            *machine_dates(server, quote, option.server_count)]  # fmt: skip


def _months_to_buy(option: Option | None, monthly: float | None) -> float | None:
    if option is None or monthly is None or option.purchase_cost is None:
        return None
    return round(option.purchase_cost / monthly, 1)


def _with_speed_floor(request: RecommendRequest) -> tuple[RecommendRequest, list[Text]]:
    """Several users and no speed asked for: every user streams at least the chat floor (knowledge/traffic.yaml, the
    floor the serving answers use too), so one card never "serves" a hundred users at a token or two a second each."""
    if request.task != "inference" or (request.concurrency or 1) <= 1 or request.tokens_per_s_per_user is not None:
        return request, []
    floor = chat_floor()
    values = {"floor": f"{floor.tokens_per_s_per_user:g}", "title": floor.source.title, "url": floor.source.url}
    text = server_data().serving_floor.text
    note = Text(en=text.en.format(**values), zh=text.zh.format(**values))
    return request.model_copy(update={"tokens_per_s_per_user": floor.tokens_per_s_per_user}), [note]


def _build(request: RecommendRequest, catalog: Catalog, serving: ServingData, currency: Currency, gpus: list[GPU]) -> list[Built]:
    built: list[Built] = []
    for sized, group in _by_practice(request, catalog, serving, currency, gpus):
        sizer = Sizer(sized, catalog, serving, currency, practice=sized.precision if sized is not request else None)
        built += [b for gpu in group if (b := sizer.configure(gpu)) is not None]
    return [b for b in built if _stands_in_office(b[0], b[1].gpu)] if request.office_site else built


OUT_OF_OFFICE = frozenset({"rack", "cloud", "board"})  # a whole rack, a cloud-only part, an HGX/OAM board in its 8-GPU server


def _stands_in_office(option: Option, gpu: GPU) -> bool:
    """A configuration an office without a server room can house: its machine is a workstation or desktop class (not a rack
    server, knowledge/servers.yaml rack_server), or the part comes in a desk machine of its own (a Mac, a DGX Spark)."""
    if option.server_class is None:
        return sold_as(gpu) not in OUT_OF_OFFICE
    server = next((c for c in server_data().classes if c.id == option.server_class), None)
    return server is not None and not server.rack_server and option.server_count <= 1


def _by_practice(request: RecommendRequest, catalog: Catalog, serving: ServingData, currency: Currency, gpus: list[GPU]) -> list[tuple[RecommendRequest, list[GPU]]]:
    """Serving with no format named: each card in the format it is usually served in (knowledge/serving_precision.yaml),
    the cards grouped by it so each group is sized once; a checkpoint that ships quantised keeps its own format."""
    if request.task != "inference" or request.precision is not None or request.precision_default != "practice" or _ships_quantised(request, catalog):
        return [(request, gpus)]
    groups: dict[str | None, list[GPU]] = {}
    sizers: dict[str | None, Sizer] = {}  # the footprints of the weights in each format of the ladder (None: 16-bit)

    def fits(gpu: GPU, precision: str | None) -> bool:
        if precision not in sizers:
            sizers[precision] = Sizer(request.model_copy(update={"precision": precision}) if precision else request, catalog, serving, currency)
        return sizers[precision].fit(gpu, _group_layout(1)) is not None

    for gpu in gpus:
        rule = serving_precision().default_for(gpu, fits=lambda precision, gpu=gpu: fits(gpu, precision))
        groups.setdefault(rule.precision if rule else None, []).append(gpu)
    return [(request.model_copy(update={"precision": precision}) if precision else request, group) for precision, group in groups.items()]


def _ships_quantised(request: RecommendRequest, catalog: Catalog) -> bool:
    try:
        spec = resolve_model(request.model if request.model else f"{request.params_b or 0:g}B", catalog)
    except AdvisorError:
        return False
    return getattr(spec, "shipped_precision", None) is not None


def _practice_notes(shown: list[Option], catalog: Catalog) -> list[Text]:
    """Why each weight format the recommender chose for a shown card is the one engineers serve it in, with its pages."""
    rules = {}
    for option in shown:
        if option.precision is not None and (rule := serving_precision().rule_for(catalog.gpu(option.gpu_id), option.precision)) is not None:
            rules.setdefault(rule.id, rule)
    said = []
    for rule in rules.values():
        each = [TEXT.text("practice_page", url=s.url, date=s.date) for s in rule.sources]
        joiner = TEXT.text("practice_pages_joiner")
        pages = Text(en=joiner.en.join(p.en for p in each), zh=joiner.zh.join(p.zh for p in each))
        said.append(TEXT.text("practice_format", format=rule.label, why=rule.why, pages=pages))
    return said


def _yuan_notes(request: RecommendRequest, currency: Currency, shown: list[Option], catalog: Catalog) -> list[Text]:
    """A yuan answer: which figures were converted from dollars and at what rate; a domestic accelerator shown: what
    its software stack runs and what has to be ported (the data in knowledge/recommend_text.yaml)."""
    said: list[Text] = []
    if currency == "CNY" and shown:
        said.append(TEXT.text("yuan_conversion", rate=f"{request.usd_to_cny:g}"))
    if any(catalog.gpu(o.gpu_id).china == "domestic" for o in shown):
        said.append(TEXT.text("domestic_ecosystem"))
    return said


def _sized_request(request: RecommendRequest, option: Option) -> RecommendRequest:
    """The request an option was sized with: its own weight format when the recommender chose one for the card."""
    return request.model_copy(update={"precision": option.precision}) if option.precision and request.precision is None else request


def _filled(request: RecommendRequest, catalog: Catalog, serving: ServingData, currency: Currency, gpus: list[GPU], built: list[Built]) -> list[Built]:
    """For each part that runs the job, the largest count sold within one server that the budget still buys, when
    that is more than the smallest configuration: more cards serve faster (wider tensor parallelism or more replicas)
    or train faster, and leave room for longer prompts and more users."""
    smallest = {option.gpu_id: option for option, _ in built}
    grown: list[Built] = []
    sizers: dict[str | None, Sizer] = {}
    for gpu in gpus:
        first = smallest.get(gpu.id)
        if first is None or first.within_budget is not True:
            continue
        if first.precision not in sizers:
            sizers[first.precision] = Sizer(_sized_request(request, first), catalog, serving, currency, practice=first.precision)
        sizer = sizers[first.precision]
        larger = [c for c in sold_counts(gpu, min(request.max_gpus, SERVER_GPUS)) if c > first.count]
        for count in reversed(larger):
            candidate = sizer.configure_at(gpu, count)
            if candidate is not None and request.office_site and not _stands_in_office(candidate[0], gpu):
                continue  # no server room: the budget grows the office machine, never into a rack server
            if candidate is not None and candidate[0].within_budget:
                grown.append(candidate)
                break
    return grown


# What a buyer gives up, in order, when the budget buys nothing that runs the job as asked.
FALLBACKS: dict[str, tuple[FallbackChange, ...]] = {"inference": ("int4",), "full_finetune": ("lora", "qlora"), "pretrain": ("lora", "qlora"), "lora": ("qlora",)}
FOUR_BIT = ("int4", "nf4", "q4", "4bit", "mxfp4", "fp4")


def _fallback(request: RecommendRequest, catalog: Catalog, serving: ServingData, currency: Currency, gpus: list[GPU]) -> BudgetFallback | None:
    """The cheapest configuration within the budget once the weights go 4-bit (serving) or the training goes
    LoRA/QLoRA; None when even that does not fit the budget."""
    for change in FALLBACKS.get(request.task, ()):
        if change == "int4":
            if any(word in (request.precision or "").casefold() for word in FOUR_BIT):
                continue
            lighter = request.model_copy(update={"precision": INT4_FORMAT})
        else:
            lighter = request.model_copy(update={"task": change, "precision": None})
        fits = [o for o, _ in _build(lighter, catalog, serving, currency, gpus) if o.within_budget and o.meets_target is not False]
        if fits:
            best = min(fits, key=lambda o: (o.consumer_server, o.purchase_cost or 0.0, o.count))
            return BudgetFallback(change=change, option=best)
    return None


def _check(request: RecommendRequest) -> None:
    check_exchange_rate(request.usd_to_cny)
    check_range(request.max_gpus, *INPUT_NAMES.pair("maximum_gpus"), minimum=1, maximum=MAX_COUNT, code="invalid_gpu_count")
    check_range(request.top, *INPUT_NAMES.pair("options_returned"), minimum=1, maximum=20, code="invalid_top")
    if request.budget is not None:
        check_range(request.budget, *INPUT_NAMES.pair("budget"), minimum=0, maximum=1e11, exclusive_minimum=True, code="invalid_budget")
    if request.objective == "budget" and request.budget is None:
        raise AdvisorError(
            "missing_budget",
            **TEXT.text("errors.missing_budget").model_dump(),
            suggestions=["budget=40000", "objective=cheapest"],
        )
    if request.concurrency is not None:
        check_range(request.concurrency, *INPUT_NAMES.pair("concurrent_users"), minimum=1, maximum=MAX_BATCH,
                    code="invalid_concurrency", hint=["1", "10", "50"])  # fmt: skip
    if request.tokens_per_s_per_user is not None:
        check_range(request.tokens_per_s_per_user, *INPUT_NAMES.pair("speed_per_user"), minimum=0,
                    maximum=MAX_TARGET_TOKENS_PER_S, exclusive_minimum=True, code="invalid_target", hint=["10", "20", "50"])  # fmt: skip
    serving_only = request.concurrency is not None or request.tokens_per_s_per_user is not None
    if serving_only and request.task != "inference":
        raise AdvisorError(
            "serving_target_for_training",
            **TEXT.text("errors.serving_target_for_training").model_dump(),
            suggestions=["task=inference"],
        )


def _heads(request: RecommendRequest, catalog: Catalog) -> int | None:
    try:
        return resolve_model(request.model if request.model else f"{request.params_b or 0:g}B", catalog).heads
    except AdvisorError:
        return None  # the memory estimator reports the problem


def _memory_request(request: RecommendRequest, layout: Layout, gpu: str | None) -> MemoryRequest:
    common = {"model": request.model, "params_b": request.params_b, "context": request.context, "batch": request.batch, "gpu": gpu}
    if request.task == "inference":
        return MemoryRequest(mode="inference", precision=request.precision, kv_precision=request.kv_precision, tp=layout.tp, pp=layout.pp, num_gpus=layout.count, **common)
    method = {"lora": "lora", "qlora": "qlora"}.get(request.task, "full")
    precision = request.precision if request.task == "qlora" else None
    return MemoryRequest(mode="training", method=method, precision=precision, zero_stage=_zero_stage(request, layout.count), num_gpus=layout.count, **common)


def _zero_stage(request: RecommendRequest, count: int) -> int:
    """Training on several GPUs shards everything (ZeRO-3/FSDP), LoRA's frozen base included."""
    return 3 if count > 1 and request.task != "inference" else 0


def _memory(request: RecommendRequest, catalog: Catalog, layout: Layout, gpu: GPU | None, strict: bool = False) -> MemoryEstimate | None:
    try:
        return estimate_memory(_memory_request(request, layout, gpu.id if gpu else None), catalog)
    except AdvisorError:
        if strict:
            raise
        return None  # e.g. a TP degree that does not divide the attention heads: not a valid plan


def _footprint(request: RecommendRequest, catalog: Catalog, layout: Layout, gpu: GPU | None) -> Footprint | None:
    """The per-GPU need (and the card's capacity) of ``_memory``'s estimate, without building the estimate."""
    try:
        return footprint(_memory_request(request, layout, gpu.id if gpu else None), catalog)
    except AdvisorError:
        return None  # e.g. a TP degree that does not divide the attention heads: not a valid plan


def _usable_gb(gpu: GPU, estimate: MemoryEstimate | Footprint | None = None) -> float:
    if gpu.segment == "apple":  # macOS wires only part of the unified memory for the GPU
        return gpu.memory_gb * GIB / GB * usable_fraction(gpu)
    return (estimate.gpu_capacity_gb if estimate else None) or gpu.memory_gb * GIB / GB


class Sizer:
    """Sizes each GPU for one request; per-GPU memory without a GPU named depends only on the layout, so it is kept.
    Every layout is weighed by its footprint (bytes only); the full estimate is built for the option shown."""

    def __init__(self, request: RecommendRequest, catalog: Catalog, serving: ServingData, currency: Currency, practice: str | None = None):
        self.request, self.catalog, self.serving, self.currency = request, catalog, serving, currency
        self.practice = practice  # the weight format the recommender chose for these cards (none was named)
        self.heads = _heads(request, catalog)
        self._free: dict[Layout, Footprint | None] = {}
        self._fits: dict[tuple[str, Layout], Footprint | None] = {}

    def fit(self, gpu: GPU, layout: Layout) -> Footprint | None:
        """The GPU's footprint for ``layout`` when it fits, else None (kept: the smallest group is sought with the same
        layouts the best layout then weighs)."""
        key = (gpu.id, layout)
        if key not in self._fits:
            self._fits[key] = self._fit(gpu, layout)
        return self._fits[key]

    def _fit(self, gpu: GPU, layout: Layout) -> Footprint | None:
        if layout not in self._free:
            self._free[layout] = _footprint(self.request, self.catalog, layout, None)
        free = self._free[layout]
        # Catalog sizes are binary (an "80 GB" card holds 80 GiB); a plan must "fit", not merely squeeze in.
        if free is None or not math.isfinite(free.total_per_gpu_gb) or free.total_per_gpu_gb > _usable_gb(gpu) * TIGHT_FRACTION:
            return None
        confirmed = _footprint(self.request, self.catalog, layout, gpu)
        if confirmed is None or verdict(confirmed.total_per_gpu_gb, _usable_gb(gpu, confirmed))[0] != "fits":
            return None
        return confirmed

    def configure(self, gpu: GPU) -> Built | None:
        """The smallest count the part is sold in that holds the model and, when a load is asked for, serves it;
        when no count serves it, the configuration that comes closest (most users served, then fewest cards)."""
        request = self.request
        counts = sold_counts(gpu, request.max_gpus)
        if not counts:
            return None
        if request.task != "inference":
            return next((built for count in counts if (built := self._trained_at(gpu, count)) is not None), None)
        needed = self._needed_group(gpu, counts[-1])
        if needed is None:
            return None
        layouts = (layout for count in counts for layout in self._layouts(count, needed))
        return self._best_layout(gpu, layouts, needed, score=lambda layout, speed: (speed.users if speed else -1, -layout.count, -layout.group),
                                 enough=lambda speed: not sized_by_speed(request) or meets(speed, request))  # fmt: skip

    def configure_at(self, gpu: GPU, count: int) -> Built | None:
        """The part at exactly ``count`` GPUs (the layout serving the load best), or None when it does not fit."""
        request = self.request
        if request.task != "inference":
            return self._trained_at(gpu, count)
        needed = self._needed_group(gpu, count)
        if needed is None:
            return None
        return self._best_layout(gpu, self._layouts(count, needed), needed,
                                 score=lambda layout, speed: (meets(speed, request) if sized_by_speed(request) else True, speed.total if speed else -1.0))  # fmt: skip

    def _trained_at(self, gpu: GPU, count: int) -> Built | None:
        """Training at ``count`` GPUs, sharded over all of them; None when it does not fit."""
        layout = Layout(count, 1, 1)
        estimate = self.fit(gpu, layout)
        return None if estimate is None else (_option(gpu, layout, estimate, None, self.request, self.currency, needed=None, practice=self.practice), Fitted(gpu, layout))

    def _needed_group(self, gpu: GPU, most: int) -> int | None:
        """The smallest tensor/pipeline group, of at most ``most`` GPUs, that holds the model on this part."""
        return next((g for g in GROUPS if g <= most and self.fit(gpu, _group_layout(g)) is not None), None)

    def _best_layout(self, gpu: GPU, layouts: Iterable[Layout], needed: int, score: Callable[[Layout, Speed | None], tuple],
                     enough: Callable[[Speed | None], bool] | None = None) -> Built | None:  # fmt: skip
        """Of the layouts that fit, in order: the first whose speed is ``enough``, else the one of highest ``score``."""
        best: tuple[tuple, Layout, Footprint, Speed | None] | None = None
        for layout in layouts:
            estimate = self.fit(gpu, layout)
            if estimate is None:
                continue
            speed = estimate_speed(gpu, layout, self.request, self.catalog, self.serving)
            if enough is not None and enough(speed):
                return _option(gpu, layout, estimate, speed, self.request, self.currency, needed=needed, practice=self.practice), Fitted(gpu, layout)
            rank = score(layout, speed)
            if best is None or rank > best[0]:
                best = (rank, layout, estimate, speed)
        if best is None:
            return None
        _, layout, estimate, speed = best
        return _option(gpu, layout, estimate, speed, self.request, self.currency, needed=needed, practice=self.practice), Fitted(gpu, layout)

    def _layouts(self, count: int, needed: int) -> list[Layout]:
        """A load of several users grows replicas of the smallest group before widening it; one stream has only
        tensor parallelism to gain from more cards, so it takes the widest group the count allows."""
        if count < needed:
            return []
        if sized_by_speed(self.request) and load(self.request) > 1:
            return serving_layouts(count, needed, self.heads)
        return [layout] if (layout := inference_layout(count, needed, self.heads)) else []


def _group_layout(group: int) -> Layout:
    tp = min(group, 8)
    return Layout(group, tp, group // tp)


def _price(price: Price | None, count: int, currency: Currency, usd_to_cny: float) -> float | None:
    if price is None:
        return None
    amount = price.amount
    if price.currency != currency:
        amount = amount * usd_to_cny if currency == "CNY" else amount / usd_to_cny
    return round(amount * count, 2)


def _plan(request: RecommendRequest, layout: Layout) -> Text:
    count, tp, pp, replicas = layout.count, layout.tp, layout.pp, layout.replicas
    if count == 1:
        return TEXT.text("plans.single_gpu")
    if request.task != "inference":
        return TEXT.text("plans.zero3", count=count)
    split = f"TP={tp}" + (f" × PP={pp}" if pp > 1 else "")
    if replicas == 1:
        return Text(en=split, zh=split)
    if layout.group == 1:
        return TEXT.text("plans.replicas_one_per_gpu", replicas=replicas)
    return TEXT.text("plans.split_replicas", split=split, replicas=replicas)


def _option(gpu: GPU, layout: Layout, estimate: Footprint, speed: Speed | None, request: RecommendRequest, currency: Currency, needed: int | None,
            practice: str | None = None) -> Option:
    count = layout.count
    card = card_price(gpu, currency, request.usd_to_cny)  # the catalog's price, else a sourced estimate (its midpoint)
    gpu_cost = round(card.mid * count, 2) if card else None
    estimated = card is not None and card.basis == "estimate"
    server = server_data().for_gpus(sold_as(gpu), gpu.segment, count)
    servers = math.ceil(count / server.holds) if server else 0
    server_cost = round(server.price(currency, request.usd_to_cny) * servers, 2) if server else None
    purchase = None if gpu_cost is None else round(gpu_cost + (server_cost or 0.0), 2)
    quote = server_data().default_quote(gpu, count // servers, server) if servers else None
    if quote is not None:  # a distributor's published price for the whole machine beats card price + generic host
        each = convert(quote.price, quote.currency, currency, request.usd_to_cny)
        purchase = round(each * servers, 2)
        server_cost = round(max(0.0, purchase - (gpu_cost or 0.0)), 2)
    spread = (round(purchase - (card.high - card.low) * count / 2, 2), round(purchase + (card.high - card.low) * count / 2, 2)) \
        if estimated and purchase is not None and quote is None else (None, None)  # fmt: skip
    if quote is not None and quote.low is not None and quote.high is not None:  # the range the whole-server quote gives
        spread = (round(convert(quote.low, quote.currency, currency, request.usd_to_cny) * servers, 2),
                  round(convert(quote.high, quote.currency, currency, request.usd_to_cny) * servers, 2))
    rent_hour = _price(gpu.cloud_price, count, currency, request.usd_to_cny)
    rent_month = round(rent_hour * HOURS_PER_MONTH, 2) if rent_hour is not None else None
    capacity = _usable_gb(gpu, estimate)
    fit, headroom = verdict(estimate.total_per_gpu_gb, capacity)
    label, units = config_label(gpu, count, server.name if server and not server.rack_server and servers == 1 else None)
    plan = _plan(request, layout)
    if practice is not None and (rule := serving_precision().rule_for(gpu, practice)) is not None:  # the format the plan runs in, said beside it
        plan = TEXT.text("plans.with_format", plan=plan, format=rule.label)
    return Option(
        precision=practice,
        gpu_id=gpu.id,
        gpu_name=gpu.name,
        count=count,
        sold_as=sold_as(gpu),
        consumer_server=_consumer_server(gpu, count, request),
        units=units,
        config_label=label,
        plan=plan.en,
        plan_label=plan,
        tp=layout.tp,
        pp=layout.pp,
        replicas=layout.replicas if request.task == "inference" else 1,
        zero_stage=_zero_stage(request, count),
        per_gpu_gb=estimate.total_per_gpu_gb,
        nominal_memory_gb=gpu.memory_gb,
        capacity_gb=round(capacity, 3),
        headroom_pct=round(headroom, 1),
        verdict=fit,
        tokens_per_s_per_user=speed.per_user if speed else None,
        ttft_ms=speed.ttft_ms if speed else None,
        tokens_per_s_total=speed.total if speed else None,
        tokens_per_s_per_10k=round(speed.total / purchase * 10_000, 2) if speed and purchase else None,
        max_users_at_target=speed.users if speed and sized_by_speed(request) else None,
        meets_target=meets(speed, request) if sized_by_speed(request) else None,
        speed_engine=speed.engine if speed else None,
        speed_assumed=bool(speed and speed.assumed),
        total_tflops=round(gpu.tensor16_tflops * count, 1) if gpu.tensor16_tflops else None,
        power_w=gpu.tdp_w * count if gpu.tdp_w else None,
        purchase_cost=purchase,
        gpu_cost=gpu_cost,
        price_estimated=estimated and quote is None,
        purchase_low=spread[0],
        purchase_high=spread[1],
        server_class=server.id if server else None,
        server_label=server.name if server else None,
        server_count=servers,
        server_cost=server_cost,
        host_power_w=server.power_w_excluding_gpus * servers if server else None,
        cloud_cost_per_hour=rent_hour,
        rent_per_month=rent_month,
        within_budget=_within_budget(request, purchase, rent_month),
        reasons=_reasons(gpu, layout, estimate, capacity, headroom, speed, request, needed) + ([_quoted(quote, currency, request.usd_to_cny)] if quote else [])
        + ([_estimated(card, count, currency)] if estimated and quote is None else []),
    )


MONTHS_PER_BUDGET = {"month": 1, "year": 12}


def monthly_budget(request: RecommendRequest) -> float | None:
    """A running budget ("$5,000 a month for the team") per month; None for a budget that buys once, or none."""
    months = MONTHS_PER_BUDGET.get(request.budget_per)
    return None if request.budget is None or months is None else request.budget / months


def _within_budget(request: RecommendRequest, purchase: float | None, rent_month: float | None) -> bool | None:
    """A purchase budget holds the whole configuration's price; a running budget holds renting it around the clock."""
    if request.budget is None:
        return None
    monthly = monthly_budget(request)
    if monthly is not None:  # no rent known: nothing shows it fits a running budget, so it is not offered within it
        return rent_month is not None and rent_month <= monthly
    return None if purchase is None else purchase <= request.budget


def _quoted(quote: ServerQuote, currency: Currency, usd_to_cny: float) -> Text:
    template = server_data().tier_text.quoted
    price = money_text(convert(quote.price, quote.currency, currency, usd_to_cny), currency)
    return Text(en=template.en.format(what=quote.what.en, price=price, date=quote.date), zh=template.zh.format(what=quote.what.zh, price=price, date=quote.date))


def _estimated(card: PriceRange, count: int, currency: Currency) -> Text:
    """Why the price is a range: the estimate's derivation, in the words of knowledge/price_estimates.yaml."""
    template = price_estimates().text.option_estimated
    cards = f"{count} × {money_text(card.low, currency)}" + (f"–{money_text(card.high, currency)}" if round(card.low) != round(card.high) else "")
    derivation = card.derivation or Text(en="", zh="")
    return Text(en=template.en.format(range=cards, derivation=derivation.en), zh=template.zh.format(range=cards, derivation=derivation.zh))


CONSUMER_SERVER_CARDS = 4  # from four GeForce cards up, a build needs a server chassis, i.e. a data-center deployment


def _consumer_server(gpu: GPU, count: int, request: RecommendRequest) -> bool:
    # a team's service among the jobs ("fine-tune 7-14B and run an internal chat for 25 people") is team serving too
    serves = request.task == "inference" or any(job.task == "inference" for job in request.workloads or [])
    team = serves and (request.team or (request.concurrency or 1) > 1)
    return gpu.segment == "consumer" and (count >= CONSUMER_SERVER_CARDS or team)


def _reasons(gpu: GPU, layout: Layout, estimate: Footprint, capacity: float, headroom: float, speed: Speed | None,
             request: RecommendRequest, needed: int | None) -> list[Text]:  # fmt: skip
    count = layout.count
    need, nominal, room = f"{estimate.total_per_gpu_gb:.1f}", f"{gpu.memory_gb:g}", f"{headroom:.0f}%"
    reasons = [TEXT.text("reasons.memory", need=need, nominal=nominal, capacity=capacity, room=room)]
    reasons += sold_reasons(gpu, count, needed)
    if _consumer_server(gpu, count, request):
        reasons.append(TEXT.text("reasons.geforce_build"))
    if count > 8:
        reasons.append(TEXT.text("reasons.several_servers"))
    elif count > 1 and not gpu.nvlink_gbs:
        reasons.append(TEXT.text("reasons.pcie_only"))
    if gpu.china == "export-controlled" and not china_buyer(request) and not buying_outside_china(request):  # only where it may matter
        reasons.append(TEXT.text("reasons.not_in_china"))
    if gpu.inference_only:
        reasons.append(TEXT.text("reasons.inference_only"))
    if request.task == "inference":
        reasons += _speed_reasons(layout, speed, request)
    return reasons


def _speed_reasons(layout: Layout, speed: Speed | None, request: RecommendRequest) -> list[Text]:
    reasons = []
    if speed is not None and speed.engine != request.engine:
        used, asked = ENGINE_LABELS[speed.engine], ENGINE_LABELS[request.engine]
        reasons.append(TEXT.text("reasons.other_engine", used=used, asked=asked))
    if speed is None:
        reasons.append(TEXT.text("reasons.no_speed"))
    if layout.pp > 1 and speed is not None:
        reasons.append(TEXT.text("reasons.pipeline_speed"))
    if sized_by_speed(request) and speed is not None:
        users, target = load(request), request.tokens_per_s_per_user
        at = TEXT.text("reasons.each_at", target=target) if target else Text(en="", zh="")
        reasons.append(TEXT.text("reasons.serves" if meets(speed, request) else "reasons.falls_short", users=users, at=at, most=speed.users))
    return reasons
