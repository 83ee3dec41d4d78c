"""“X or Y for this model?”: each option sized, timed and priced by the tools, then a verdict with its reasons.

An option is a GPU with the number of cards the user gave for it ("one L40S or two 4090s"), or, when they
gave none, the recommender's smallest configuration on sale that holds the workload (a 4-GPU HGX board, a
server with two cards…). For every option the memory
estimator says whether it fits and with what headroom, the throughput estimator (serving) or the
training-time estimator (full training) says how fast it runs, and the catalog prices the whole option.
"""

from __future__ import annotations

from advisor.markdown import money, number
from advisor.nlu.frame import counts_of
from advisor.offline.tasks.recommend import mainland, vendor_tradeoffs
from advisor.offline.tasks.tco import price_dates
from advisor.offline.tasks.specs.compare_view import SAME_SPEED, TIMED_TRAINING, Option, side_by_side, sold_in_notes, tool_method, verdict
from advisor.offline.tasks.serving.engines import engine_of
from advisor.offline.wording import Wording
from advisor.offline.workload import (
    QUANTISED_SERVING, TASK_LABEL, model_of, precision_for, say_serving_format, serving_format, task_of, zero_stage_of,
)
from advisor.offline.turn import Turn
from knowledge.bilingual import AdvisorError
from tools.cost.token_cost import TokenCostRequest, token_cost
from tools.recommend.configs import SERVER_GPUS, sold_as, sold_count_from

PCIE_FORMS = ("pcie", "nvl")  # the id words of a data-centre chip's PCIe card (A100 80GB PCIe, H200 NVL)

WORDING = Wording("specs", "compare")

MAX_OPTIONS = 4
LIKE_COUNTS = (1, 2, 4, 8)  # card counts tried, fewest first, when the user named none
PER_BILLION = 1e9  # without a token count, training speed is given per billion tokens


def options(turn: Turn) -> list[tuple[str, int | None]]:
    """(GPU, cards) pairs in the order named; a count belongs to the GPU right after it ("two 4090s", "4090 x2")
    or right before it ("4090 x2"). The same GPU named twice with different counts is two options."""
    frame = turn.entities.frame if turn.entities.frame.has("gpu") else turn.slots.frame
    gpus = sorted(frame.slots.get("gpu", []), key=lambda v: v.start)
    found = [(g.value, count) for g, count in zip(gpus, counts_of(gpus, frame.slots.get("gpu_count", [])))]
    return list(dict.fromkeys(found))[:MAX_OPTIONS]


def route(turn: Turn, default_task: str = "inference") -> str | None:
    """The comparison, when the question names two or more options and a workload; otherwise None."""
    workload = turn.slots.frame.has("model") or turn.slots.frame.has("size") or turn.ask.pasted_config
    if not workload:
        return None
    pairs = options(turn)
    return answer(turn, pairs, model_of(turn), default_task) if len(pairs) > 1 else None


def answer(turn: Turn, pairs: list[tuple[str, int | None]], model: str, default_task: str = "inference") -> str:
    turn.slots.mark("gpu", "gpu_count")
    turn.entities.mark("gpu", "gpu_count")
    task, named = task_of(turn)
    if not named:
        task = default_task
        turn.assume(
            *WORDING.both("compare_phrases.answer.task_since_none_was_named", task=turn.t(*TASK_LABEL[task]))
        )
    listed = turn.call("compare_gpus", {"gpus": list(dict.fromkeys(g for g, _ in pairs))})
    if not listed.ok:
        return turn.error(listed)
    rows = {r["gpu"]["id"]: r["gpu"] for r in listed.result["rows"]}
    ids = [turn.catalog.gpu(g).id for g, _ in pairs]
    opts = [Option(rows[i], count, count is not None) for i, (_, count) in zip(ids, pairs, strict=True)]
    precision = precision_for(turn, task)
    for option in opts:
        _evaluate(turn, option, model, task, _format_of(turn, task, option, precision, model))
    if task == "inference" and precision is None and opts and not any(o.fits or o.problem for o in opts):
        # none of the stated options holds BF16 weights: what a buyer of these cards runs is 4-bit weights (AWQ/GPTQ), so
        # each option is weighed that way, and said (the BF16 need stays in the assumption)
        opts = [Option(rows[i], count, count is not None) for i, (_, count) in zip(ids, pairs, strict=True)]
        for option in opts:
            _evaluate(turn, option, model, task, QUANTISED_SERVING)
        turn.assume(*WORDING.pair("compare_phrases.answer.quantised_since_bf16_fits_none"))
    for option in opts:
        _price_machine(turn, option)
    sized = [o.label for o in opts if o.sized_like_for_like]
    if sized:
        turn.assume(*WORDING.both("compare_phrases.answer.fewest_cards_each", options=turn.t(", ", "、").join(sized)))
    problems = {o.problem for o in opts}
    if len(problems) == 1 and "" not in problems:  # e.g. an unknown model: one explanation, not one per option
        return problems.pop()
    for gpu in rows.values():
        turn.cite_gpu(gpu)
    label = turn.t(*TASK_LABEL[task])
    first = next((o for o in opts if o.fit), None)
    what = turn.text(first.fit["model_label"]) if first else model
    head = _speed_lead(turn, opts, what) if task == "inference" else ""
    versus = WORDING.say(turn, "lines.versus", names=WORDING.say(turn, "lines.vs").join(o.label for o in opts), label=label, what=what)
    head = head or versus
    # "MI300X or H100 for serving 70B?" asks which: the pick and its one reason lead, the figures it rests on follow, then its
    # trade-offs; "does the H20 outrun an H100?" asks the speeds (Ask.parts): they lead when there are two to set side by side
    pick, _, trade_offs = verdict(turn, opts, task).partition("\n")
    speeds_asked = "speed" in turn.ask.parts and head != versus
    parts = [head, pick, trade_offs, side_by_side(turn, opts, task)] if speeds_asked else [pick, head, trade_offs, side_by_side(turn, opts, task)]
    if task == "inference" and asks_cost_per_token(turn):  # the cost per token leads, the speed verdict follows
        parts.insert(0, per_token(turn, opts, what))
    # the verdict and its reasoning first; a mainland buyer then hears what cannot be bought new there (mainland.py's rule),
    # then another vendor's part: software, achieved speed, what to benchmark; then the table
    parts[-1:-1] = [*mainland.blocked_of(turn, ids), *vendor_tradeoffs.lines(turn, ids), sold_in_notes(turn, opts)]
    parts.append("\n".join(f"- **{o.label}**{turn.t(': ', '：')}{o.problem}" for o in opts if o.problem))
    parts += price_dates.stale_note(turn, [dated for o in opts for dated in price_dates.gpu_prices(o.gpu)])  # the table shows both prices
    turn.assume(
        *WORDING.pair("compare_phrases.answer.prices_are_indicative_catalog_figures")
    )
    return "\n\n".join(p for p in parts if p)


def _price_machine(turn: Turn, option: Option) -> None:
    """The whole configuration's purchase price: the cards plus the machine they need (knowledge/servers.yaml: a desktop for
    one card, a 4-GPU workstation, a GPU server per 8), so four cards are never weighed against one by card prices alone."""
    price = option.price("purchase_price")  # none for a part with no list price (MI300X): the tool's sourced estimate prices it
    if not option.count or "estimate_server_price" not in turn.registry.names():
        return
    # a part sold only on boards (one SXM A100 is no machine anyone sells) is priced as the smallest machine it comes in
    gpu = turn.catalog.gpu(option.gpu["id"])
    bought = (sold_count_from(gpu, option.count) if sold_as(gpu) == "board" else None) or option.count
    currency = price["currency"] if price else turn.currency
    priced = turn.call("estimate_server_price", {"gpu": option.gpu["id"], "gpus": max(bought, option.count), "currency": currency})
    if priced.ok and priced.result.get("whole"):
        option.machine = priced.result
    if option.sold_in and option.sold_in <= SERVER_GPUS:  # fewer cards than one board: its PCIe model of the same memory, where the catalog has one
        option.pcie = _pcie_model(turn, option)


def _pcie_model(turn: Turn, option: Option) -> tuple[str, dict | None] | None:
    """The same chip as a PCIe card sold one at a time (A100 80GB SXM → A100 80GB PCIe, H200 SXM → H200 NVL), with the
    machine the option's count of it goes in, priced (None when the catalog has no price for it); None without one."""
    gpu = turn.catalog.gpu(option.gpu["id"])
    siblings = (turn.catalog.gpu_variant(gpu.id, form, gpu.memory_gb) for form in PCIE_FORMS)
    card = next((s for s in siblings if s is not None and sold_as(s) == "server"), None)
    if card is None:
        return None
    priced = turn.call("estimate_server_price", {"gpu": card.id, "gpus": option.count, "currency": option.price("purchase_price")["currency"]})
    return card.name, priced.result if priced.ok and priced.result.get("whole") else None


def _speed_lead(turn: Turn, opts: list[Option], model: str) -> str:
    """The fastest and slowest fitting options' speed per user, and by how much: the figures the verdict rests on."""
    timed = sorted((o for o in opts if o.fits and o.speed), key=lambda o: o.speed["decode_tokens_per_s_per_seq"], reverse=True)
    if len(timed) < 2:
        return ""
    fast, slow = timed[0], timed[-1]
    fast_speed, slow_speed = fast.speed["decode_tokens_per_s_per_seq"], slow.speed["decode_tokens_per_s_per_seq"]
    if fast_speed - slow_speed <= SAME_SPEED * fast_speed:
        return "**" + WORDING.say(turn, "speed_same", model=model, options=turn.t(", ", "、").join(o.label for o in timed),
                                  speeds=" / ".join(number(o.speed["decode_tokens_per_s_per_seq"]) for o in timed)) + "**"  # fmt: skip
    ratio = fast_speed / slow_speed
    return "**" + WORDING.say(turn, "speed_lead_times" if ratio >= 2 else "speed_lead", model=model, faster=fast.label,
                              slower=slow.label, faster_name=fast.name, fast=number(fast_speed), slow=number(slow_speed),
                              gain=round((ratio - 1) * 100), times=number(ratio, 1)) + "**"  # fmt: skip


def asks_cost_per_token(turn: Turn) -> bool:
    """The question asks what a token costs ("cost per million tokens", in either language)."""
    return "cost_per_token" in turn.ask.named.get("topic", ())


def per_token(turn: Turn, opts: list[Option], model: str) -> str:
    """Cost per million output tokens of each option at full load and on-demand cloud prices, the cheaper first."""
    costed, lines = [], []
    for o in opts:
        price = o.price("cloud_price")
        if not (price and o.speed and o.count):
            lines.append(WORDING.say(turn, "token_cost_missing", option=o.label))
            continue
        cost = token_cost(TokenCostRequest(price_per_gpu_hour=price["amount"], gpus=o.count, output_tokens_per_s=o.speed["output_tokens_per_s_total"]))
        costed.append((cost.per_million_tokens, o, price["currency"]))
        lines.append(WORDING.say(turn, "token_cost_line", option=o.label, speed=number(o.speed["output_tokens_per_s_total"]),
                                 batch=o.speed["effective_batch"], tokens_per_hour=number(cost.tokens_per_hour),
                                 hourly=money(price["amount"] * o.count, price["currency"]), per_card=money(price["amount"], price["currency"]),
                                 gpus=o.count, cost=money(cost.per_million_tokens, price["currency"])))  # fmt: skip
    parts, ask, missing = [], "", turn.t(", ", "、").join(o.name for o in opts if all(o is not c for _, c, _ in costed))
    if len(costed) == 1 and missing:  # what can be worked out, and the one figure that would finish it
        cost, costed_option, currency = costed[0]
        parts.append("**" + WORDING.say(turn, "token_cost_one", model=model, costed=costed_option.label,
                                        cost=money(cost, currency), missing=missing) + "**")  # fmt: skip
        ask = WORDING.say(turn, "token_cost_ask", missing=missing)
    if len(costed) > 1 and len({currency for _, _, currency in costed}) == 1:
        costed.sort(key=lambda entry: entry[0])
        (low, cheaper, currency), (high, dearer, _) = costed[0], costed[-1]
        parts.append("**" + WORDING.say(turn, "token_cost_lead", model=model, cheaper=cheaper.label, dearer=dearer.label,
                                        cheaper_name=cheaper.name, cheaper_cost=money(low, currency),
                                        dearer_cost=money(high, currency), saving=round((1 - low / high) * 100)) + "**")  # fmt: skip
    parts += ["\n".join(f"- {line}" for line in lines), ask]
    basis = WORDING.text("token_cost_basis")
    turn.assume(basis.en, basis.zh)
    return "\n\n".join(part for part in parts if part)


def _format_of(turn: Turn, task: str, option: Option, precision: str | None, model: str) -> str | None:
    """Serving with no format named: each card in the format it serves fastest (FP8 on an H100, 16-bit on an A100), the
    rule the recommendation and the serving answer use, said once per card; otherwise the format for every option."""
    if task != "inference" or precision is not None:
        return precision
    fits = _holds(turn, option, model)
    chosen = serving_format(turn, option.gpu["id"], fits)
    if chosen is not None:
        say_serving_format(turn, option.gpu["id"], chosen, fits)
    return chosen


def _holds(turn: Turn, option: Option, model: str):
    """"Do weights in this format (None: 16-bit) fit the option's cards (one when none were stated)?": the memory
    estimate a card that steps down its precision ladder (a GeForce, an A100) is sized by, as in a one-card answer."""
    answered: dict[str | None, bool] = {}

    def fits(precision: str | None) -> bool:
        if precision not in answered:
            count = option.count or 1
            held = turn.call("estimate_memory", {"model": model, "mode": "inference", "method": "full", "precision": precision,
                                                 "context": turn.slots.context_length, "batch": turn.slots.concurrency or turn.slots.batch_size,
                                                 "gpu": option.gpu["id"], "num_gpus": count, "tp": min(count, 8)})  # fmt: skip
            answered[precision] = held.ok and held.result.get("verdict") in ("fits", "tight")
        return answered[precision]

    return fits


def _evaluate(turn: Turn, option: Option, model: str, task: str, precision: str | None) -> None:
    batch = turn.slots.concurrency or turn.slots.batch_size
    inference = task == "inference"
    fit = _smallest_count(turn, option, model, task, precision, batch) if option.count is None else None
    if fit is not None:
        pass  # like for like: the fewest cards of this GPU that hold the workload, whatever it is sold in
    elif option.count is None:
        chosen = _on_sale(turn, option, model, task, precision, batch)
        if chosen is None:
            return
        option.count, option.tp, option.pp = chosen["count"], chosen["tp"], chosen.get("pp", 1)
        option.zero, option.plan = chosen["zero_stage"], turn.text(chosen["plan_label"])
        config = turn.text(chosen["config_label"]) if chosen.get("config_label") else option.label
        turn.assume(*WORDING.both("compare_phrases.evaluate.the_smallest_configuration_on_sale", name=option.name, config=config))  # fmt: skip
        fit = _fit(turn, option, model, task, precision, batch)
    else:
        fit = fit_stated(turn, option, model, task, precision, batch)
    if not fit.ok:
        option.problem = _problem(turn, fit)
        return
    option.fit = fit.result
    option.precision = precision
    option.plan = option.plan or _plan(turn, task, option)
    if not option.fits:
        if option.stated:
            needed = _on_sale(turn, option, model, task, precision, batch)
            if needed:
                plan = turn.text(needed["plan_label"])
                option.needed = WORDING.say(turn, "compare_phrases.evaluate.needs", count=needed['count'], name=option.name, plan=plan)
        return
    if inference and "estimate_throughput" in turn.registry.names():
        _serving_speed(turn, option, model, precision, batch)
    elif task in TIMED_TRAINING:
        _training_speed(turn, option, model, task)


def _smallest_count(turn: Turn, option: Option, model: str, task: str, precision: str | None, batch: int | None):
    """The memory estimate on the fewest cards (of LIKE_COUNTS) that hold the workload, with the option set to that
    count; None when even the largest does not (the configuration on sale is sized then). Comparing a single card
    with a 4-card board would credit the board's speed to the GPU."""
    for count in LIKE_COUNTS:
        option.count = count
        fit = fit_stated(turn, option, model, task, precision, batch)
        if fit.ok and fit.result.get("verdict") in ("fits", "tight"):
            option.sized_like_for_like = True
            return fit
    option.count, option.tp, option.pp, option.zero = None, 1, 1, 0
    return None


def fit_stated(turn: Turn, option: Option, model: str, task: str, precision: str | None, batch: int | None):
    """The memory estimate on the number of cards the user stated: serving splits them by tensor parallelism
    within a server and pipelines across servers, training shards with ZeRO (stage 3 unless one was named)."""
    if task == "inference":
        option.tp, option.pp = min(option.count, 8), max(option.count // 8, 1)
    else:
        option.zero = (zero_stage_of(turn) or 3) if option.count > 1 else 0
    fit = _fit(turn, option, model, task, precision, batch)
    divisors = [int(d) for d in (fit.error or {}).get("suggestions", []) if str(d).isdigit()]
    if not fit.ok and fit.error["code"] == "tp_not_dividing_heads":
        # "8× B200 for a 7B model": split as far as the heads allow, the other cards serve replicas
        usable = [d for d in divisors if d <= option.tp and option.count % d == 0]
        if usable:
            option.tp, option.pp = max(usable), 1
            fit = _fit(turn, option, model, task, precision, batch)
    return fit


def memory_on(turn: Turn, model: str, task: str, gpu_id: str, count: int):
    """The stated cards as an option and the memory estimate on them, sized as the comparison would (ZeRO-3 for
    training on several cards unless a stage was named)."""
    gpu = turn.catalog.gpu(gpu_id)
    option = Option({"id": gpu.id, "name": gpu.name}, count, True)
    return option, fit_stated(turn, option, model, task, precision_for(turn, task), turn.slots.batch_size)


def _fit(turn: Turn, option: Option, model: str, task: str, precision: str | None, batch: int | None):
    inference = task == "inference"
    s = turn.slots
    args = {
        "model": model, "mode": "inference" if inference else "training",
        "method": tool_method(task), "precision": precision,
        "context": s.context_length, "batch": batch, "gpu": option.gpu["id"], "num_gpus": option.count,
        "tp": option.tp if inference else None, "pp": option.pp if inference and option.pp > 1 else None,
        "kv_precision": s.kv_precision if inference else None, "zero_stage": option.zero or None,
    }  # fmt: skip
    return turn.call("estimate_memory", args)


def _problem(turn: Turn, outcome) -> str:
    """The tool's explanation alone: its suggestions are arguments for another call, not words for people."""
    return f"⚠️ {AdvisorError(**{**(outcome.error or {}), 'suggestions': []}).message(turn.language)}"


def _on_sale(turn: Turn, option: Option, model: str, task: str, precision: str | None, batch: int | None) -> dict | None:
    """The recommender's smallest configuration of this GPU that holds the workload, as it is sold (boards, servers)."""
    # sized in the format the comparison weighs this option in (its memory and speed calls, ``_format_of``), so a count
    # is never said in another format than the speed beside it
    args = {"model": model, "task": task, "precision": precision, "precision_default": "bf16", "context": turn.slots.context_length,
            "batch": batch, "gpus": [option.gpu["id"]], "top": 1, "currency": turn.currency}  # fmt: skip
    found = turn.call("recommend_gpus", args)
    if not found.ok:
        option.problem = _problem(turn, found)
        return None
    if not found.result["options"]:
        notes = "; ".join(turn.text(n) for n in found.result["notes"])
        option.needed = notes or WORDING.say(turn, "compare_phrases.on_sale.does_not_fit_in_any")
        return None
    return found.result["options"][0]


def _plan(turn: Turn, task: str, option: Option) -> str:
    count = option.count
    if count == 1:
        return WORDING.say(turn, "compare_phrases.plan.single_gpu")
    if task != "inference" and option.zero:
        return WORDING.say(turn, "compare_phrases.plan.zero_over_gpus", zero=option.zero, count=count)
    if task != "inference":
        return WORDING.say(turn, "compare_phrases.plan.data_parallel_over_gpus", count=count)
    parts = ([f"TP={option.tp}"] if option.tp > 1 else []) + ([f"PP={option.pp}"] if option.pp > 1 else [])
    split = " × ".join(parts)
    replicas = count // (option.tp * option.pp)
    if replicas == 1:
        return split
    if not split:
        return WORDING.say(turn, "compare_phrases.plan.replicas_one_per_gpu", replicas=replicas)
    return WORDING.say(turn, "compare_phrases.plan.replicas", split=split, replicas=replicas)


def _serving_speed(turn: Turn, option: Option, model: str, precision: str | None, batch: int | None) -> None:
    """Decode and prefill speed of the option's plan (the estimator has no pipeline stages: TP × PP is
    estimated as one tensor-parallel group, an approximation that is said)."""
    s = turn.slots
    s.mark("prompt_tokens", "output_tokens")
    split = option.tp * option.pp
    if option.pp > 1:
        turn.assume(*WORDING.both("compare_phrases.serving_speed.speed_estimated_as_tp", label=option.label, split=split))
    args = {
        "model": model, "gpu": option.gpu["id"], "num_gpus": option.count, "tp": split, "precision": precision,
        "kv_precision": s.kv_precision, "engine": engine_of(turn), "batch": batch,
        "prompt_tokens": s.frame.get("prompt_tokens"), "output_tokens": s.frame.get("output_tokens"),
    }  # fmt: skip
    speed = turn.call("estimate_throughput", args)
    if speed.ok and batch is None and asks_cost_per_token(turn):  # a token's cost is the deployment's when it is kept full
        speed = turn.call("estimate_throughput", {**args, "batch": max(speed.result["max_batch_fits"], 1)})
    if not speed.ok:
        option.problem = _problem(turn, speed)
        return
    if not any(o for o in turn.calls[:-1] if o.name == "estimate_throughput" and o.ok):
        turn.assumptions += [turn.text(note) for note in speed.result.get("assumptions", [])[:3]]  # the same for every option
    option.speed = speed.result


def _training_speed(turn: Turn, option: Option, model: str, task: str) -> None:
    tokens = turn.slots.tokens
    if tokens is None:
        turn.assume(
            *WORDING.pair("compare_phrases.training_speed.training_speed_is_given_per")
        )
    args = {"model": model, "tokens": tokens or PER_BILLION, "gpu": option.gpu["id"], "num_gpus": option.count,
            "currency": turn.currency, "method": tool_method(task)}  # fmt: skip
    timed = turn.call("estimate_training_time", args)
    if not timed.ok:
        option.problem = _problem(turn, timed)
        return
    option.training = timed.result
