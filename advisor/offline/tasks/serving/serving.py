"""“How fast will it serve?”, “how many users at once?”, “how many GPUs for this load?” answers, from the throughput estimator.

The figure the question asks for leads (advisor.nlu.asked): a speed, a latency, the concurrency the KV cache
holds, or the fewest GPUs that carry the load within its targets. Wording lives in the package text.yaml (section serving).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.markdown import number, table
from knowledge.sentences import sentences
from advisor.offline.tasks.recommend import mainland
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.memory import sizing
from advisor.offline.tasks.serving import plan, render
from advisor.offline.tasks.concept.knowledge import related
from advisor.offline.tasks.serving.serving_card import stated_card, traffic_lines
from advisor.offline.tasks.serving.serving_facts import fp8_weight_only_lines, moe_lines
from advisor.offline.tasks.serving.serving_latency import queue_lines, reasoning_of, split_queue, visible_token_lines
from advisor.offline.tasks.serving.serving_floor import (
    apply_chat_floor, both_targets, chat_floor_tokens_per_s, is_floor, only_floor, readable_assumption, readable_floor_tokens_per_s,
    tool_args,
)
from advisor.offline.tasks.serving.peak_said import peak_said
from advisor.offline.tasks.serving.serving_range import RangeEnd, range_lead, range_models
from advisor.offline.tasks.serving.serving_words import WORDING, serving_text
from advisor.offline.wording import Wording
from advisor.offline.workload import task_of
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome
from knowledge.bilingual import Text
from knowledge.gpus import GPU
from knowledge.trap_checks import trap_checks
from tools.serving.load import CeilingResult, DecodeCeiling, RateLoad, RateResult, decode_ceiling, rate_load

FIT_ERRORS = ("does_not_fit", "context_does_not_fit")
CLEAR_GAIN = 1.1  # a precision that moves speed or concurrency by less than this is "little change"


@dataclass
class Estimate:
    """One estimate_throughput call: its result, or its bilingual error."""

    outcome: ToolOutcome

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    @property
    def result(self) -> dict:
        return self.outcome.result or {}

    @property
    def does_not_fit(self) -> bool:
        return not self.ok and (self.outcome.error or {}).get("code") in FIT_ERRORS


def estimate(turn: Turn, args: dict) -> Estimate:
    return Estimate(turn.call("estimate_throughput", tool_args(args)))


def answer(turn: Turn) -> str:
    if "estimate_throughput" not in turn.registry.names():
        return sizing.memory(turn)
    model = turn.model_reference()
    if model is None:
        return sizing.memory(turn)  # asks for the model, with what the knowledge base says
    if outgrows_one_card(turn):  # "32B on one 48 GB card for 50 users?": the KV budget in lower-bit weights
        return kv_budget_answer(turn)
    if len(compare.options(turn)) > 1:  # "4090 x2 or A6000 for 16 users?": each option, side by side
        return compare.answer(turn, compare.options(turn), model)
    ends = range_models(turn)
    if ends:  # "7B to 72B": a row per end, the larger one answered in full
        return range_answer(turn, ends)
    return answer_model(turn, model)


def range_answer(turn: Turn, ends: list[tuple[str, float]]) -> str:
    """Both ends of a model range at the stated setup and load; then the full answer for the larger end."""
    args = plan.base_args(turn, ends[-1][0])
    floor = None if args.get("target_tokens_per_s_per_user") or args.get("target_ttft_ms") or turn.ask.observed_in_thread else chat_floor_tokens_per_s()
    results = []
    for model, size in ends:
        e = estimate(turn, {**args, "model": model, "batch": args["batch"] or 1})
        results.append(RangeEnd(model, size, e.result if e.ok else None))
    sized = next((end.result for end in reversed(results) if end.result is not None), None)
    setup = serving_text("setup", count=sized["num_gpus"] if sized else args.get("num_gpus") or 1, gpu=render.card_name(turn, args["gpu"]))
    lead = range_lead(turn, results, setup, args["batch"] or 1, floor, render.bound)
    turn.slots.mark("size")
    return "\n\n".join([*lead, answer_model(turn, ends[-1][0], dict(args))])


def answer_model(turn: Turn, model: str, args: dict | None = None) -> str:
    """The serving answer for one model (``args``: the estimate's arguments when already built)."""
    asked = turn.ask.serving_asks
    if turn.ask.reports_latency and (turn.ask.tail_latency or turn.ask.weighs_parallelism):  # "p99 TTFT is seconds at peak"
        return latency_answer(turn)
    args = args or plan.base_args(turn, model)
    apply_chat_floor(turn, args)  # no target stated: every verdict and size below is held to the chat floor
    rate = plan.stated_rate(turn, args)
    sizes_for_rate = rate is not None and turn.slots.gpu_count is None and not turn.slots.tp
    if (asked == "gpu_count" and not plan.count_given_since(turn)) or sizes_for_rate:  # "50 QPS on H100s": the fewest that carry it
        return _finish(turn, gpu_count(turn, args))
    if rate is not None:  # "10 req/s on 2 H100, will it keep up?"
        return _finish(turn, keeps_up(turn, args, rate))
    parts, setup_note = [], []
    if plan.weighs_a_precision(turn) and args["precision"] == "fp8" and not plan.has_fp8(turn, args["gpu"]):
        args["precision"] = None  # FP8 asked of a card without it: weighed below, the figures in its usual 16-bit weights
    if turn.slots.gpu_count is None and not turn.slots.tp and turn.slots.concurrency:  # "on H100s for 200 users": as many as the load needs
        if turn.ask.count_asked_earlier:  # "what's the TTFT for this?" after a count: the setup that count sized, in its precision
            plan.precision_for_count(turn, args)
        sized = _smallest_setup(turn, args, turn.slots.concurrency)
        sized, fewer = _fewer_in_lower_bits(turn, args, turn.slots.concurrency, sized)
        setup_note += fewer
        if sized is not None:
            tp, copies = sized
            args.update(num_gpus=tp * copies, tp=tp)
            target = render.targets(args)
            setup_note.append(turn.text(serving_text("sized_for_load", count=tp * copies, gpu=render.card_name(turn, args["gpu"]), plan=render.plan_text(tp, copies),
                                       load=f"{turn.slots.concurrency:,}", target_part=serving_text("target_part", target=target) if target else render.NOTHING)))  # fmt: skip
    laid_out = plan.layout_for_load(turn, args)
    if laid_out is not None:  # "50 at once on our 8 A100s": copies of a smaller group serve them faster than one copy over all 8
        tp, chosen, wide = laid_out
        args["tp"] = tp
        setup_note.append(turn.text(serving_text("layout_for_load", count=chosen["num_gpus"], gpu=chosen["gpu"], plan=render.plan_text(tp, chosen["replicas"]),
                                                 load=f"{turn.slots.concurrency:,}", speed=number(chosen["tokens_per_s_per_user_streaming"]),
                                                 wide_plan=render.plan_text(wide["tp"], wide["replicas"]), wide_speed=number(wide["tokens_per_s_per_user_streaming"]))))  # fmt: skip
    choice = _precision_choice(turn, args)
    first = estimate(turn, args)
    lowered, base = None, (args.get("precision") or plan.BASE_PRECISION).upper()
    if first.does_not_fit and plan.format_open(turn, args):  # no precision named: the lower-bit weights that fit before more cards
        first, lowered = _lower_precision_fit(turn, args, first)
    if first.does_not_fit and turn.slots.gpu_count is None and not turn.slots.tp:  # one card cannot hold it: the fewest that can
        first = _fewest_that_fit(turn, args)
    if not first.ok:  # with a target stated, what would meet it follows the reason this setup cannot run
        reaches = what_reaches(turn, args, turn.slots.concurrency or 1, None) if first.does_not_fit and render.targets(args) else []
        return _finish(turn, "\n\n".join(filter(None, [choice, _error(turn, first), *reaches])))
    r = first.result
    lowered_lead = []
    if lowered is not None:  # "70B on one L40S?": what made it fit, with its quality cost, right under the verdict
        lowered_lead.append(turn.text(serving_text("lower_precision_fits", model=Text(**r["model_label"]), setup=serving_text("setup", count=r["num_gpus"], gpu=r["gpu"]),
                                            base=base, precision=lowered.upper(), quality=render.quality(turn, lowered, r["model_id"]))))  # fmt: skip
    elif plan.is_card_default(turn, args) and asked != "concurrency":  # "in FP8, ...", under the verdict only where BF16 changes it
        lowered_lead += [line for line in [_format_line(turn, args, r)] if line]
    if asked == "concurrency":
        parts += concurrency_lead(turn, args, r)
    elif asked == "latency":
        parts.append(turn.text(serving_text("latency_lead", ttft=number(r["ttft_ms"]), prompt=f"{r['prompt_tokens']:,}", batch=number(r["effective_batch"]),
                                   per_user=number(r["tokens_per_s_per_user_streaming"]), bound=render.bound(r))))  # fmt: skip
        parts += queued(turn, args, r) or target_missed(turn, args, r)  # the time asked leads; a target it misses at this load follows
    else:
        waiting = queued(turn, args, r)
        missed = waiting or target_missed(turn, args, r)  # requests left waiting are the first "no"
        if missed and _users_target(args):  # the user's own target missed: that verdict, by how much, is the first sentence
            parts += [*ttft_missed(turn, args, r), *missed, _speed_lead(turn, r)]
        elif missed and not waiting and r["effective_batch"] > 1 and not r.get("max_concurrency_at_target"):
            # "20 users at once on two L40S?": the load asked leads, with the figures of the table below it; the single
            # stream's ceiling and how many stay readable follow as the reason, never as the headline
            parts += [_speed_lead(turn, r), *missed]
        else:
            parts += missed
            if not missed and _users_target(args):  # "first token under 500 ms for 40 users?": the verdict on that target leads
                parts.append(f"{target_met(turn, args, r)} {_speed_lead(turn, r)}")
            else:
                parts.append(floor_met(turn, args, r) if not missed and is_floor(args) else _speed_lead(turn, r))
        if r.get("max_concurrency_at_target") and not missed and not both_targets(args):
            parts.append(turn.text(serving_text("speed_target_concurrency", at_target=number(r["max_concurrency_at_target"]), target=render.targets(args))))
    if asked != "concurrency" and parts:  # a team's peak the figures were timed at is a default said in the lead (recommend's rule)
        parts[0] += peak_said(turn, turn.slots.concurrency)
    if asked != "concurrency":  # the concurrency lead names its binding limit itself
        parts += binding_line(turn, args, r)
    facts = moe_lines(turn, r["model_id"]) + fp8_weight_only_lines(turn, r.get("weights_format") or "", args["gpu"])
    parts = [choice] * bool(choice) + parts[:1] + lowered_lead + setup_note + facts + parts[1:]  # "should we use FP8?" is the question: its verdict first
    if asked != "concurrency" and plan.reports_serving_slowdown(turn):  # "only a few requests run at once": the memory left after the weights
        parts = [part for part in [squeeze_report(turn), *parts] if part]
    elif asked != "concurrency":
        parts += _squeeze_note(turn, r)
    reasoning = reasoning_of(turn, r["model_id"])
    if reasoning is not None:  # a thinking model: the first token a user can read leads, whatever else was asked
        parts = [*visible_token_lines(turn, reasoning, r), *parts]
    parts += _details(turn, r)
    return _finish(turn, "\n\n".join(parts))


def latency_answer(turn: Turn) -> str:
    """A described latency complaint about serving ("text appears after 8 s", "p99 TTFT is seconds under load"): the
    estimate at the stated setup, then what the user waits for. A reasoning model's hidden thinking leads; a tail under
    load is prompts queueing for prefill; a follow-up weighing TP against copies gets both splits of the same cards."""
    model = turn.model_reference()
    if model is None:
        return sizing.memory(turn)
    args = {**plan.base_args(turn, model), "batch": turn.slots.concurrency or 1}
    args.pop("target_tokens_per_s_per_user", None)  # a complaint states what it sees, not a per-user target
    args.pop("target_ttft_ms", None)  # "p50 is 300 ms, p99 goes to 6 s": in a complaint a time is what is seen, not the budget
    first = estimate(turn, args)
    if first.does_not_fit and turn.slots.gpu_count is None and not turn.slots.tp:
        first = _fewest_that_fit(turn, args)
    if not first.ok:
        return _finish(turn, _error(turn, first))
    r = first.result
    parts: list[str] = []
    if turn.ask.weighs_parallelism and r["num_gpus"] >= 2:  # "expert parallel or two TP=2 copies?": the same cards split both ways
        wide = estimate(turn, {**args, "num_gpus": r["num_gpus"], "tp": r["num_gpus"]})
        half = estimate(turn, {**args, "num_gpus": r["num_gpus"], "tp": r["num_gpus"] // 2})
        if wide.ok:
            parts += split_queue(turn, wide.result, half.result if half.ok else None, args)
    reasoning = reasoning_of(turn, r["model_id"])
    if reasoning is not None:
        parts += visible_token_lines(turn, reasoning, r)
    if turn.ask.tail_latency or reasoning is None:
        parts += queue_lines(turn, args, r)
    parts += _details(turn, r)
    return _finish(turn, "\n\n".join(parts))


def meets(r: dict) -> bool:
    """Every user asked for runs at once, within the targets the estimate was given."""
    at_target = r.get("max_concurrency_at_target")
    return r["effective_batch"] >= r["batch"] and (at_target is None or at_target >= r["effective_batch"])


def _format_line(turn: Turn, args: dict, r: dict) -> str:
    """The card's default format, said under the verdict; the 16-bit figures beside it only when they change it."""
    fmt = (args.get("precision") or "").upper()
    card = render.card_name(turn, args["gpu"])
    base = estimate(turn, {**args, "precision": plan.BASE_PRECISION})
    if (base.ok and meets(base.result) == meets(r)) or (not base.ok and not base.does_not_fit):
        return ""  # the same verdict in BF16: the format is said among the assumptions only
    if not base.ok:
        return turn.text(serving_text("format_default_base_no_fit", format=fmt, gpu=card, base=plan.BASE_PRECISION.upper()))
    b = base.result
    key = "format_default_base_meets" if not meets(r) else "format_default_base_slower" if b["effective_batch"] >= b["batch"] else "format_default_base_misses"
    return turn.text(serving_text(key, format=fmt, gpu=card, base=plan.BASE_PRECISION.upper(), fits=f"{b['effective_batch']:,}",
                                  users=f"{b['batch']:,}", per_user=render.per_user_figure(render.average_per_user(b))))  # fmt: skip


def binding_line(turn: Turn, args: dict, r: dict) -> list[str]:
    """A first-token target and a per-user speed held together: each checked at the load, and the one that stops one
    more user at once named (or memory, when the KV cache fills first with both still met)."""
    at_target = r.get("max_concurrency_at_target")
    if not both_targets(args) or not at_target or r.get("limit_at_target") is None:
        return []
    return [turn.text(serving_text(f"two_targets_{r['limit_at_target']}", ttft=number(r["ttft_ms"]), ttft_target=number(args["target_ttft_ms"]),
                                   per_user=render.per_user_figure(render.average_per_user(r)), speed=render.speed_target(args), at_target=f"{at_target:,}",
                                   load=f"{r['effective_batch']:,}"))]  # fmt: skip


def _speed_lead(turn: Turn, r: dict) -> str:
    if r["effective_batch"] > 1:  # many at once: the streaming speed each user sees and the total at that load
        return turn.text(serving_text("speed_lead_load", average=render.per_user_figure(render.average_per_user(r)), total=number(r["output_tokens_per_s_total"]),
                                      users=number(r["effective_batch"]), ttft=number(r["ttft_ms"]), bound=render.bound(r)))  # fmt: skip
    return turn.text(serving_text("speed_lead", per_user=number(r["decode_tokens_per_s_per_seq"]), ttft=number(r["ttft_ms"]), bound=render.bound(r)))


def _at_load(turn: Turn, args: dict, r: dict, batch: int) -> dict:
    """The estimate ``r`` re-run with ``batch`` sequences in flight (``r`` itself when it already has that load)."""
    if batch == r["effective_batch"]:
        return r
    return estimate(turn, {**args, "batch": max(batch, 1)}).result or r


def concurrency_lead(turn: Turn, args: dict, r: dict) -> list[str]:
    """How many users at once. With a per-user speed or first-token target, the most that meet it leads and the
    KV-cache capacity follows as the second limit, naming the one that binds; without one, the KV cache's count."""
    tokens = f"{r['prompt_tokens'] + r['output_tokens']:,}"
    setup = serving_text("setup", count=r["num_gpus"], gpu=r["gpu"])
    full = _at_load(turn, args, r, r["max_batch_fits"])  # the speeds when every sequence that fits runs
    fits = full["effective_batch"]  # a full batch's prefill activations take a little of the room one request leaves
    target = render.targets(args)
    at_floor = full.get("max_concurrency_at_target") or 0
    # "how many can it hold?": the KV cache's count answers it and the chat floor judges it, unless only some of that count
    # keep the floor: a count at a per-user speed nobody would accept is no concurrency, so the count at the floor leads
    # and the KV bound follows as the second limit (the target path below)
    if target is None or (only_floor(args) and not 0 < at_floor < fits):
        lead = serving_text("concurrency_lead", fits=f"{fits:,}", tokens=tokens, setup=setup, engine=render.engine_label(r["engine"]),
                            total=number(full["output_tokens_per_s_total"]), average=render.per_user_figure(render.average_per_user(full)),
                            ttft=number(full["ttft_ms"]))  # fmt: skip
        return [f"{turn.text(lead)} {concurrency_floor(turn, args, full, fits)}".strip(), *_squeeze_note(turn, full)]
    at_target = full.get("max_concurrency_at_target") or 0
    if not at_target:
        one = _at_load(turn, args, r, 1)
        return [turn.text(serving_text("concurrency_target_misses", target=target, setup=setup, average=render.per_user_figure(render.average_per_user(one)),
                                       ttft=number(one["ttft_ms"]))), *what_reaches(turn, args, 1, None)]  # fmt: skip
    held = _at_load(turn, args, r, at_target)
    lead = serving_text("concurrency_at_target_lead", at_target=f"{at_target:,}", target=target, setup=setup, engine=render.engine_label(r["engine"]),
                        average=render.per_user_figure(render.average_per_user(held)), total=number(held["output_tokens_per_s_total"]), ttft=number(held["ttft_ms"]))  # fmt: skip
    limit = full.get("limit_at_target") or "kv_cache"
    binds = serving_text(f"binds_{limit}", fits=f"{fits:,}", tokens=tokens, at_target=f"{at_target:,}", at_fits=render.per_user_figure(render.average_per_user(full)))
    return [turn.text(lead), turn.text(binds), *_squeeze_note(turn, held)]


def _squeezed(r: dict, reported: bool = False) -> bool:
    """A handful of sequences fit; in a slowdown report, also weights that take most of each card's memory."""
    few = 0 < r["max_batch_fits"] <= WORDING.data["squeeze_max_sequences"]
    crowded = r["weights_gb_per_gpu"] >= WORDING.data["squeeze_weights_share"] * r["memory_gb_per_gpu"] > 0
    return few or (reported and crowded)


def _squeeze_note(turn: Turn, r: dict) -> list[str]:
    """Few sequences fit once the weights are loaded: the memory arithmetic per GPU, in the serving answer itself."""
    return [turn.text(kv_squeeze_text(turn, r))] if _squeezed(r) else []


def kv_squeeze_text(turn: Turn, r: dict, key: str = "kv_squeeze") -> Text:
    """Free memory per GPU after the weights → the sequences that fit (``key``: squeezed, or roomy)."""
    precision = (r.get("weights_format") or plan.BASE_PRECISION).upper()
    return serving_text(key, fits=f"{r['max_batch_fits']:,}", tokens=f"{r['prompt_tokens'] + r['output_tokens']:,}", gpu=r["gpu"],
                        memory=number(r["memory_gb_per_gpu"]), model=Text(**r["model_label"]), precision=precision,
                        weights=number(r["weights_gb_per_gpu"]), free=number(r["kv_free_gb_per_gpu"], 2), per_seq=number(r["kv_gb_per_sequence"], 3))  # fmt: skip


def _capacity_per_copy(turn: Turn, args: dict, tp: int, rate: float | None = None) -> float | None:
    """Sequences one TP-``tp`` copy carries within the targets (its KV cache alone without targets); with a
    request ``rate``, the requests per second it sustains at that load. None when the weights do not fit."""
    e = estimate(turn, {**args, "num_gpus": tp, "tp": tp, "batch": 1})
    if not e.ok:
        return None
    held = e.result.get("max_concurrency_at_target") or 0 if render.targets(args) is not None else e.result["max_batch_fits"]
    if rate is None or not held:
        return held
    full = estimate(turn, {**args, "num_gpus": tp, "tp": tp, "batch": held})
    return _law(rate, full.result).sustainable_requests_per_s if full.ok else None


def _capacities(turn: Turn, args: dict, load: float, rate: float | None = None) -> dict[int, float | None]:
    """What one copy carries at each TP size, smallest first. A size whose single copy already takes more GPUs than
    the best plan found so far cannot win (``_smallest``), so it is not estimated: sizing takes a handful of calls."""
    found: dict[int, float | None] = {}
    for tp in plan.TP_SIZES:
        best = _smallest(found, load)
        if best is not None and tp > best[0] * best[1]:
            break
        found[tp] = _capacity_per_copy(turn, args, tp, rate)
    return found


def _law(rate: float, r: dict) -> RateResult:
    """Little's law for ``rate`` against the estimate ``r`` (its load, its speeds)."""
    return rate_load(RateLoad(requests_per_s=rate, prompt_tokens=r["prompt_tokens"], output_tokens=r["output_tokens"], ttft_ms=r["ttft_ms"],
                              output_tokens_per_s_total=r["output_tokens_per_s_total"], in_flight=r["effective_batch"],
                              tokens_per_s_per_user_streaming=r["tokens_per_s_per_user_streaming"],
                              prefill_tokens_per_s=r["prefill_tokens_per_s"] * r["replicas"]))  # fmt: skip


@dataclass
class RateFit:
    """The smallest load in flight at which a setup keeps up with a request rate (or its fullest, when it cannot)."""

    result: dict
    law: RateResult


LITTLE_ROUNDS = 6  # fixed-point rounds of Little's law before falling back to a bisection (near saturation it crawls)


def load_for_rate(turn: Turn, args: dict, rate: float) -> RateFit | Estimate:
    """Requests in flight for ``rate`` on the setup in ``args``: the fewest N whose per-request time T(N) gives
    rate × T(N) ≤ N; the setup's fullest load when none does. The estimate's error when the setup does not run at all.
    T grows with N, so iterating N ← ⌈rate × T(N)⌉ from N = 1 (then secant steps on rate × T(N) − N, which cross
    zero faster near the answer) reaches a load that keeps up in a few estimates; a bisection between the last N and
    the fullest load finishes the rare case that still climbs slowly."""
    first = estimate(turn, {**args, "batch": 1})
    if first.does_not_fit and not args.get("precision") and plan.has_fp8(turn, args["gpu"]):  # the card's FP8 before "does not fit"
        plan.precision_for_count(turn, args)
        first = estimate(turn, {**args, "batch": 1})
    if not first.ok:
        return first
    fits = first.result["max_batch_fits"]

    def at(n: int) -> RateFit:
        r = estimate(turn, {**args, "batch": n}).result if n > 1 else first.result
        return RateFit(r, _law(rate, r))

    n, tried = 1, at(1)
    previous: tuple[int, float] | None = None
    for _ in range(LITTLE_ROUNDS):
        if tried.law.keeps_up:
            return tried
        if n >= fits:
            return tried  # the fullest load does not keep up
        short = tried.law.in_flight - n  # requests that would be in flight beyond the N tried
        step = math.ceil(short - 1e-9)
        if previous is not None and short < previous[1]:  # a secant step on rate × T(N) − N: the climb slows near the answer
            step = math.ceil(short * (n - previous[0]) / (previous[1] - short) - 1e-9)
        previous = (n, short)
        n = min(fits, n + max(step, 1))
        tried = at(n)
    if tried.law.keeps_up:
        return tried
    fullest = at(fits)
    if not fullest.law.keeps_up:
        return fullest
    low, high, found = n + 1, fits, fullest
    while low < high:
        middle = (low + high) // 2
        trial = at(middle)
        if trial.law.keeps_up:
            high, found = middle, trial
        else:
            low = middle + 1
    return found if found.result["effective_batch"] == low else at(low)


def _rate_assumption(turn: Turn, rate: float, fit: RateFit) -> None:
    """The conversion said as an assumption: rate × time per request = in flight; the prefill asked of the setup."""
    law, r = fit.law, fit.result
    shape = render.NOTHING if turn.slots.frame.has("prompt_tokens") and turn.slots.frame.has("output_tokens") else serving_text("shape_assumed")
    turn.assumptions.append(turn.text(serving_text(
        "rate_as_load", rate=render.rate_words(turn, rate, r["output_tokens"]), seconds=number(law.seconds_per_request, 2), ttft=number(r["ttft_ms"]),
        output=f"{r['output_tokens']:,}", per_user=number(law.tokens_per_s_per_user_streaming), in_flight=number(law.in_flight),
        prefill=number(law.prefill_tokens_per_s_needed), prefill_share=number(law.prefill_share * 100), prompt=f"{r['prompt_tokens']:,}",
        shape=shape)))  # fmt: skip


def keeps_up(turn: Turn, args: dict, rate: float) -> str:
    """ "10 requests/s on 2 H100s, will it keep up?": the load in flight by Little's law, against the setup's capacity."""
    fit = load_for_rate(turn, args, rate)
    if isinstance(fit, Estimate):
        return _error(turn, fit)
    r, law = fit.result, fit.law
    setup = serving_text("setup", count=r["num_gpus"], gpu=r["gpu"])
    figures = {"setup": setup, "rate": render.rate_words(turn, rate, r["output_tokens"]), "model": Text(**r["model_label"]), "seconds": number(law.seconds_per_request, 2),
               "ttft": number(r["ttft_ms"]), "per_user": render.per_user_figure(law.tokens_per_s_per_user_streaming), "in_flight": number(law.in_flight),
               "total": number(law.output_tokens_per_s_needed)}  # fmt: skip
    _rate_assumption(turn, rate, fit)
    if law.keeps_up:
        parts = [turn.text(serving_text("rate_keeps_up", held=number(r["effective_batch"]), **figures))]
        parts += target_missed(turn, args, r)
    else:
        copies = math.ceil(rate / law.sustainable_requests_per_s)  # the whole setup copied, each copy taking its share
        parts = [turn.text(serving_text("rate_overloaded", capacity=number(law.sustainable_requests_per_s, 2), fits=number(r["effective_batch"]),
                                        copies=copies, more=copies * r["num_gpus"], gpu=r["gpu"], **figures))]  # fmt: skip
    return "\n\n".join([parts[0], *render.total_shared(turn, args, law), *traffic_lines(turn, to_rate=True), *parts[1:], *_details(turn, r)])


def _smallest(capacities: dict[int, int | None], load: int) -> tuple[int, int] | None:
    """(tp, copies) with the fewest GPUs that carry ``load`` at once; on a tie the larger TP (one copy serves
    each user faster). None when no standard TP size holds the weights within the targets."""
    best: tuple[int, int] | None = None
    for tp, holds in capacities.items():
        if not holds:
            continue
        copies = math.ceil(load / holds)
        if best is None or tp * copies <= best[0] * best[1]:
            best = (tp, copies)
    return best


def _smallest_setup(turn: Turn, args: dict, load: int) -> tuple[int, int] | None:
    return _smallest(_capacities(turn, args, load), load)


def _fewest_that_fit(turn: Turn, args: dict) -> Estimate:
    """No GPU count was given and one card does not hold the model: the smallest TP that does, said as an assumption."""
    last = None
    for tp in plan.TP_SIZES[1:]:
        last = estimate(turn, {**args, "num_gpus": tp, "tp": tp})
        if last.ok:
            args.update(num_gpus=tp, tp=tp)
            turn.assumptions.append(turn.text(serving_text("count_assumed", gpu=last.result["gpu"], count=tp, tp=tp)))
            return last
        if not last.does_not_fit:
            return last
    return last  # type: ignore[return-value]  (plan.TP_SIZES has sizes above 1)


def _lower_precision_fit(turn: Turn, args: dict, first: Estimate) -> tuple[Estimate, str | None]:
    """No precision named and the 16-bit weights do not fit: the card's steps down (FP8; INT8 then 4-bit on a card the
    serving-format rules step down, as the recommender does) on the same setup; when the user fixed the card count,
    4-bit weights last, since more cards are not an option. Returns the
    estimate that fits and its precision (``args`` updated), or ``first`` and None. With no count fixed and nothing
    fitting, ``args`` keeps the lower bits so the fewest cards that fit are counted in them."""
    fixed = turn.slots.gpu_count is not None or bool(turn.slots.tp)
    steps, sized_in = plan.lower_steps(turn, args["gpu"]), args.get("precision")
    lower = steps[-1]  # nothing fits one card: the fewest cards are counted in the ladder's last step (the recommender's)
    for precision in dict.fromkeys((*steps, "awq-int4") if fixed else steps):
        if precision == sized_in:  # the card's default format was the first estimate
            continue
        trial = estimate(turn, {**args, "precision": precision})
        if trial.ok:
            args["precision"] = precision
            return trial, precision
        if not trial.does_not_fit:
            return first, None
    if fixed:
        return first, None
    args["precision"] = lower
    counted = _fewest_that_fit(turn, args)
    if counted.ok:
        return counted, None if lower == sized_in else lower
    args["precision"] = sized_in
    return first, None


def _fewer_in_lower_bits(turn: Turn, args: dict, load: float, sized: tuple[int, int] | None) -> tuple[tuple[int, int] | None, list[str]]:
    """The fewest cards for a load in the user's precision, against the same in FP8 when none was named: FP8 is used when
    it needs fewer cards (said with its count and quality cost); a 16-bit precision the user named is kept, with one
    sentence on FP8's count when it would halve the cards."""
    stated = turn.slots.precision
    if args.get("precision") in ("fp8", "awq-int4", "int8", "int4") or not plan.has_fp8(turn, args["gpu"]):
        return sized, []
    fp8 = _smallest({**_capacities(turn, {**args, "precision": "fp8"}, load)}, load)
    if fp8 is None or (sized is not None and fp8[0] * fp8[1] >= sized[0] * sized[1]):
        return sized, []
    total = fp8[0] * fp8[1]
    if stated:  # the user's precision stays; FP8 is named when it halves the count
        if sized is None or total * 2 > sized[0] * sized[1]:
            return sized, []
        return sized, [turn.text(serving_text("lower_precision_fewer", precision="FP8", precision_word="fp8", count=total, gpu=render.card_name(turn, args["gpu"]),
                                              plan=render.plan_text(*fp8), stated=sized[0] * sized[1], quality=render.quality(turn, "fp8")))]  # fmt: skip
    args["precision"] = "fp8"
    if sized is None:
        return fp8, []
    return fp8, [turn.text(serving_text("lower_precision_fewer_used", count=total, gpu=render.card_name(turn, args["gpu"]), plan=render.plan_text(*fp8), stated=sized[0] * sized[1],
                                        quality=render.quality(turn, "fp8")))]  # fmt: skip


def gpu_count(turn: Turn, args: dict) -> str:
    """The fewest GPUs of the named card (standard TP sizes, then copies of the best) for the load and the targets;
    a request rate is carried as the requests per second each copy sustains (Little's law)."""
    rate = plan.stated_rate(turn, args)
    load = rate or turn.slots.concurrency or 1
    plan.precision_for_count(turn, args)
    capacities = _capacities(turn, args, load, rate)
    tried = [serving_text("tried_size", tp=tp, outcome=render.tried(holds, rate)) for tp, holds in capacities.items()]
    best = _smallest(capacities, load)
    card = render.card_name(turn, args["gpu"])
    precision = (args.get("precision") or plan.BASE_PRECISION).upper()
    model = turn.catalog.model(args["model"]).name if turn.catalog.find_model(args["model"]) else args["model"]
    listed = Text(en="; ".join(t.en for t in tried), zh="；".join(t.zh for t in tried))
    if best is None:
        return "\n\n".join([turn.text(serving_text("gpu_count_none", most=plan.TP_SIZES[-1], gpu=card, model=model, precision=precision)),
                            *what_reaches(turn, args, load, rate), turn.text(serving_text("tried_sizes", tried=listed))])  # fmt: skip
    tp, copies = best
    target = render.targets(args)
    figures = {"total_gpus": tp * copies, "plan": render.plan_text(tp, copies), "precision": precision,
               "target_part": serving_text("target_part", target=target) if target else render.NOTHING}  # fmt: skip
    if rate is not None:
        fit = load_for_rate(turn, {**args, "num_gpus": tp * copies, "tp": tp}, rate)
        if isinstance(fit, Estimate):
            return _error(turn, fit)
        r, law = fit.result, fit.law
        _rate_assumption(turn, rate, fit)
        lead = serving_text("rate_gpu_count_lead", gpu=r["gpu"], model=Text(**r["model_label"]), rate=render.rate_words(turn, rate, r["output_tokens"]),
                            seconds=number(law.seconds_per_request, 2), in_flight=number(law.in_flight), per_user=number(law.tokens_per_s_per_user_streaming),
                            ttft=number(r["ttft_ms"]), **figures)  # fmt: skip
        return "\n\n".join([turn.text(lead), *render.total_shared(turn, args, law), *render.in_servers(turn, tp * copies), *traffic_lines(turn, to_rate=True),
                            turn.text(serving_text("tried_sizes", tried=listed)), *_details(turn, r)])  # fmt: skip
    else:
        final = estimate(turn, {**args, "num_gpus": tp * copies, "tp": tp, "batch": load})
        if not final.ok:
            return _error(turn, final)
        r = final.result
        lead = serving_text("gpu_count_lead", gpu=r["gpu"], model=turn.text(r["model_label"]), load=f"{load:,}",
                            per_user=number(r["tokens_per_s_per_user_streaming"]), ttft=number(r["ttft_ms"]), **figures)  # fmt: skip
        _, fewer = _fewer_in_lower_bits(turn, dict(args), load, best)  # a 16-bit precision the user named: FP8's count when it halves it
        fewer = [*_on_cards_stated(turn, args, tp, tp * copies, load), *fewer]
    return "\n\n".join([turn.text(lead), *fewer, *binding_line(turn, args, r), *render.in_servers(turn, tp * copies), turn.text(serving_text("tried_sizes", tried=listed)), *_details(turn, r)])


def target_missed(turn: Turn, args: dict, r: dict) -> list[str]:
    """A stated target this setup misses leads the answer: for one user, the ceiling and its bandwidth arithmetic;
    for the load asked, how far it holds; then what would meet it. With two targets, the one missed is named."""
    target = render.missed_target(args, r)
    at_target = r.get("max_concurrency_at_target")
    if target is None or at_target is None or at_target >= r["effective_batch"]:
        return []
    setup = serving_text("setup", count=r["num_gpus"], gpu=r["gpu"])
    if at_target == 0:
        alone = _at_load(turn, args, r, 1)  # "the most one user gets": the speed of a single request, not of the load
        streams = _readable_streams(turn, args, alone)
        if streams:  # short of the chat floor but readable: the single stream and the readable load lead, not a "no"
            lead = serving_text("single_stream_readable", single=number(render.average_per_user(alone)), setup=setup, ttft=number(alone["ttft_ms"]), target=target,
                                streams=f"{streams:,}", readable=number(readable_floor_tokens_per_s()))  # fmt: skip
            return [turn.text(lead), *what_reaches(turn, args, 1, None)]
        lead = serving_text("target_impossible", target=target, setup=setup, model=Text(**r["model_label"]), per_user=number(render.average_per_user(alone)),
                            ttft=number(r["ttft_ms"]), ceiling=_ceiling_arithmetic(turn, alone))  # fmt: skip
        return [turn.text(lead), *what_reaches(turn, args, 1, None)]
    lead = serving_text("target_missed_at_load", target=target, setup=setup, load=number(r["effective_batch"]),
                        per_user=number(r["tokens_per_s_per_user_streaming"]), ttft=number(r["ttft_ms"]), at_target=number(at_target), bound=render.bound(r))  # fmt: skip
    return [turn.text(lead), *what_reaches(turn, args, r["effective_batch"], None)]


def _users_target(args: dict) -> bool:
    """A target the user stated: a first-token time, or a per-user speed that is not the chat floor."""
    return bool(args.get("target_ttft_ms")) or (bool(args.get("target_tokens_per_s_per_user")) and not is_floor(args))


def ttft_missed(turn: Turn, args: dict, r: dict) -> list[str]:
    """"No: first token ≈ 427 ms at 20 at once against ≤ 200 ms, 227 ms over": a first-token target missed, with its margin."""
    target = args.get("target_ttft_ms")
    if not target or r["ttft_ms"] <= target:
        return []
    return [turn.text(serving_text("ttft_missed", setup=serving_text("setup", count=r["num_gpus"], gpu=r["gpu"]), ttft=number(r["ttft_ms"]),
                                   target=number(target), over=number(r["ttft_ms"] - target), users=number(r["effective_batch"])))]  # fmt: skip


def target_met(turn: Turn, args: dict, r: dict) -> str:
    """"Yes: 2× L40S meet first token ≤ 500 ms at 4 at once, ≈ 271 ms to spare": the stated target's verdict and margin."""
    margins = []
    if args.get("target_ttft_ms"):
        margins.append(serving_text("margin_ttft", ttft=number(r["ttft_ms"]), spare=number(args["target_ttft_ms"] - r["ttft_ms"])))
    if args.get("target_tokens_per_s_per_user"):
        each = render.average_per_user(r)
        margins.append(serving_text("margin_speed", per_user=render.per_user_figure(each), spare=render.per_user_figure(each - args["target_tokens_per_s_per_user"])))
    joined = Text(en="; ".join(m.en for m in margins), zh="；".join(m.zh for m in margins))
    meet = serving_text("meet_verb.one" if r["num_gpus"] == 1 else "meet_verb.many")  # "1× H100 meets", "2× L40S meet"
    return turn.text(serving_text("target_met", setup=serving_text("setup", count=r["num_gpus"], gpu=r["gpu"]), target=render.targets(args), meet=meet,
                                  users=number(r["effective_batch"]), margins=joined))  # fmt: skip


def floor_met(turn: Turn, args: dict, r: dict) -> str:
    """The speed lead when it clears the chat floor: the figures, and the floor they clear."""
    return f"{_speed_lead(turn, r)} {turn.text(serving_text('floor_met', target=render.targets(args)))}"


def concurrency_floor(turn: Turn, args: dict, full: dict, fits: int) -> str:
    """After the KV cache's count: how many of those stay at the chat floor (all, some, or not even one)."""
    if not is_floor(args):
        return turn.text(serving_text("concurrency_no_target"))
    at_floor = full.get("max_concurrency_at_target") or 0
    streams = 0 if at_floor else _readable_streams(turn, args, _at_load(turn, args, full, 1))
    if streams:  # not one at the chat floor, yet readable: the single stream and how many stay readable
        return turn.text(serving_text("concurrency_floor_readable", target=render.targets(args), single=render.per_user_figure(render.average_per_user(_at_load(turn, args, full, 1))),
                                      streams=f"{min(streams, fits):,}", readable=number(readable_floor_tokens_per_s())))  # fmt: skip
    key = "concurrency_floor_all" if at_floor >= fits else "concurrency_floor_some" if at_floor else "concurrency_floor_none"
    return turn.text(serving_text(key, target=render.targets(args), at_floor=f"{at_floor:,}", fits=f"{fits:,}", average=render.per_user_figure(render.average_per_user(full))))


def _readable_streams(turn: Turn, args: dict, alone: dict) -> int:
    """Held only to the chat floor (no target of the user's) and short of it even alone: the streams that stay above the
    readable floor (knowledge/traffic.yaml), said as an assumption; 0 when the floor was the user's or one stream is slower."""
    readable = readable_floor_tokens_per_s()
    if not is_floor(args) or render.average_per_user(alone) < readable:
        return 0
    held = estimate(turn, {**args, "target_tokens_per_s_per_user": readable, "batch": 1})
    streams = min(held.result.get("max_concurrency_at_target") or 0, held.result.get("max_batch_fits") or 0) if held.ok else 0
    note = turn.text(readable_assumption())
    if streams and note not in turn.assumptions:
        turn.assumptions.append(note)
    return streams


def queued(turn: Turn, args: dict, r: dict) -> list[str]:
    """More users asked for than the KV cache holds: "no, not all at once" leads, then what carries the whole load."""
    if r["effective_batch"] >= r["batch"]:
        return []
    setup = serving_text("setup", count=r["num_gpus"], gpu=r["gpu"])
    lead = serving_text("kv_queued", users=f"{r['batch']:,}", fits=f"{r['effective_batch']:,}", queued=f"{r['batch'] - r['effective_batch']:,}",
                        setup=setup, per_user=render.per_user_figure(render.average_per_user(r)), against=_against(args, r))  # fmt: skip
    return [turn.text(lead), *what_reaches(turn, args, r["batch"], None)]


def _against(args: dict, r: dict) -> Text:
    """", below the chat floor of ≥ 20 tokens/s per user" — the speed of the running ones against the target, when one applies."""
    target = render.targets(args)
    if target is None or not args.get("target_tokens_per_s_per_user"):
        return render.NOTHING
    above = render.average_per_user(r) >= args["target_tokens_per_s_per_user"]
    return serving_text("against_above" if above else "against_below", target=target)


def _ceiling_arithmetic(turn: Turn, r: dict) -> Text:
    """Bandwidth ÷ weight bytes read per token: why one user cannot go faster on this card."""
    ceiling = read_ceiling(r, turn.catalog.find_gpu(r["gpu"]))
    if ceiling is None:
        return render.NOTHING
    return serving_text("ceiling_arithmetic", formula=ceiling.formula, per_user=number(r["decode_tokens_per_s_per_seq"]))


def weights_read_gb(r: dict) -> float:
    """The weight bytes each GPU reads per generated token (GB), from the estimate's ``weights_read`` line: for an MoE
    the experts a token touches, not all the experts held (``weights_gb_per_gpu``); 0 when the line is missing."""
    return next((item["value"] for item in r.get("lines", []) if item["key"] == "weights_read"), None) or 0.0


def read_ceiling(r: dict, card: GPU | None) -> CeilingResult | None:
    """The decode ceiling of one stream: ``card``'s bandwidth ÷ the weights read per token (None when either is unknown).
    The one place the ceiling is computed: the impossible-target lead, the measured-speed verdict and the variant check."""
    read = weights_read_gb(r)
    if card is None or read <= 0:
        return None
    return decode_ceiling(DecodeCeiling(weights_read_gb=read, bandwidth_gb_s=card.bandwidth_gbs))


def what_reaches(turn: Turn, args: dict, load: float, rate: float | None) -> list[str]:
    """Configurations that meet the targets for ``load``: more tensor parallelism or lower-bit weights on this card,
    then faster cards (text.yaml ``serving.faster_cards``); each with its GPU count and per-user speed."""
    options, seen, fastest = [], set(), None
    lower = "fp8" if plan.has_fp8(turn, args["gpu"]) and args.get("precision") not in ("fp8", "awq-int4") else "awq-int4"
    candidates = [(args["gpu"], args.get("precision")), (args["gpu"], lower)]
    if not turn.slots.precision and not plan.is_card_default(turn, args):  # 16-bit by default: lower bits on this card before more cards
        candidates.reverse()
    candidates += [(gpu, "fp8" if plan.has_fp8(turn, gpu) else args.get("precision")) for gpu in WORDING.data["faster_cards"] if gpu != args["gpu"]]
    for gpu, precision in candidates:
        trial = {**args, "gpu": gpu, "precision": precision, **({} if gpu == args["gpu"] else {"gpu_memory_gb": None})}
        best = _smallest(_capacities(turn, trial, load, rate), load)
        if best is None:  # nothing meets it: remember the fastest single user at the largest standard size, to name it
            top = estimate(turn, {**trial, "num_gpus": plan.TP_SIZES[-1], "tp": plan.TP_SIZES[-1], "batch": 1})
            if top.ok and (fastest is None or top.result["decode_tokens_per_s_per_seq"] > fastest[0]["decode_tokens_per_s_per_seq"]):
                fastest = (top.result, precision)
        if best is None or (gpu, best) in seen:
            continue
        seen.add((gpu, best))
        tp, copies = best
        e = estimate(turn, {**trial, "num_gpus": tp * copies, "tp": tp, "batch": max(1, math.ceil(load)) if rate is None else 1})
        if not e.ok or (tp * copies, gpu) == (args.get("num_gpus"), args["gpu"]) and precision == args.get("precision"):
            continue
        options.append((tp * copies, serving_text("reaches_option", count=tp * copies, gpu=e.result["gpu"], plan=render.plan_text(tp, copies),
                                                  precision=(precision or plan.BASE_PRECISION).upper(), per_user=number(e.result["tokens_per_s_per_user_streaming"]))))  # fmt: skip
        if len(options) == 3:
            break
    options = [option for _, option in sorted(options, key=lambda pair: pair[0])]  # fewest cards first: one bigger card before many small ones
    if not options and fastest is not None:
        r, precision = fastest
        return [turn.text(serving_text("reaches_nothing", count=r["num_gpus"], gpu=r["gpu"], plan=render.plan_text(r["tp"], 1),
                                       precision=(precision or plan.BASE_PRECISION).upper(), per_user=number(r["tokens_per_s_per_user_streaming"])))]  # fmt: skip
    if not options:
        return []
    listed = Text(en="; ".join(o.en for o in options), zh="；".join(o.zh for o in options))
    return [turn.text(serving_text("reaches_list", options=listed))]


def _precision_choice(turn: Turn, args: dict) -> str:
    """ "Should we use FP8?": the precision named against BF16 on the same setup and load."""
    if not plan.weighs_a_precision(turn):
        return ""
    choice = turn.reading.frame.get("precision")
    turn.slots.mark("precision")
    card = render.card_name(turn, args["gpu"])
    base = estimate(turn, {**args, "precision": plan.BASE_PRECISION})
    if choice == "fp8" and not plan.has_fp8(turn, args["gpu"]):
        alt = estimate(turn, {**args, "precision": plan.WEIGHT_ONLY_FALLBACK})
        if not (alt.ok and base.ok):
            return ""
        return turn.text(serving_text("precision_no_fp8", gpu=card, alternative=plan.WEIGHT_ONLY_FALLBACK.upper(), base=plan.BASE_PRECISION.upper(),
                             base_speed=number(base.result["output_tokens_per_s_total"]), alt_speed=number(alt.result["output_tokens_per_s_total"]),
                             base_fits=number(base.result["max_batch_fits"]), alt_fits=number(alt.result["max_batch_fits"])))  # fmt: skip
    chosen = estimate(turn, {**args, "precision": choice})
    if not chosen.ok:
        return ""
    figures = {"choice": choice.upper(), "base": plan.BASE_PRECISION.upper(), "gpu": card,
               "choice_speed": number(chosen.result["output_tokens_per_s_total"]), "choice_fits": number(chosen.result["max_batch_fits"])}  # fmt: skip
    if not base.ok:
        return turn.text(serving_text("precision_base_no_fit", **figures))
    gain = max(chosen.result["output_tokens_per_s_total"] / base.result["output_tokens_per_s_total"],
               chosen.result["max_batch_fits"] / max(base.result["max_batch_fits"], 1))  # fmt: skip
    key = "precision_yes" if gain >= CLEAR_GAIN else "precision_same"
    return turn.text(
        serving_text(
            key, base_speed=number(base.result["output_tokens_per_s_total"]), base_fits=number(base.result["max_batch_fits"]), **figures
        )
    )


def _error(turn: Turn, failed: Estimate) -> str:
    return turn.error(failed.outcome)


def _details(turn: Turn, r: dict) -> list[str]:
    parts = [f"ℹ️ {turn.text(note)}" for note in r.get("notes", [])]  # queueing, layers run in turn, the weights' file, a generic model
    rows = turn.item_rows(r.get("lines", []))
    if rows:
        parts.append(table([WORDING.say(turn, "serving_phrases.details.item"), WORDING.say(turn, "serving_phrases.details.value"), WORDING.say(turn, "serving_phrases.details.formula")], rows))
    turn.assumptions += [turn.text(a) for a in r.get("assumptions", [])[:5]]
    if r["effective_batch"] > 1:
        turn.assumptions.append(turn.text(serving_text("staggered")))
    turn.assumptions.append(turn.text(serving_text("prefill_rule")))
    return parts


def observed_verdict(turn: Turn) -> str:
    """Normal, low or high: the measured per-user speed against the estimate at the stated load (the same per-user
    definition), then why decode runs at that speed, then the levers to try."""
    model = turn.model_reference()
    if model is None:
        return sizing.memory(turn)
    args = plan.base_args(turn, model)
    observed = turn.ask.observed_speed or 0.0
    args.pop("target_tokens_per_s_per_user", None)  # the speed stated is the measurement, not a target
    args.pop("target_ttft_ms", None)
    users = turn.slots.concurrency or 1
    args["batch"] = users
    first = estimate(turn, args)
    if first.does_not_fit and turn.slots.gpu_count is None and not turn.slots.tp:
        first = _fewest_that_fit(turn, args)
    if not first.ok:
        return _finish(turn, _error(turn, first))
    r = first.result
    expected = render.average_per_user(r)
    band = trap_checks().speed.band
    kind = "low" if observed < expected * (1 - band) else "high" if observed > expected * (1 + band) else "normal"
    lead = "claim_" if turn.ask.claimed_rate else "normal_"  # a claim to believe reads plausible / optimistic, a measurement normal / low
    if turn.ask.claimed_rate and kind == "high" and turn.ask.observed_scope != "total" and observed > single_ceiling(turn, r) > 0:
        kind = "impossible"  # no user decodes faster than one stream reading the weights at the card's bandwidth
    gap = round(abs(observed / expected - 1) * 100) if expected else 0
    figures = {"ratio": number(observed / max(expected, 1e-9), 1), "observed": number(observed), "expected": render.per_user_figure(expected), "model": Text(**r["model_label"]),
               "setup": serving_text("setup", count=r["num_gpus"], gpu=r["gpu"]), "engine": render.engine_label(r["engine"]),
               "users": f"{r['effective_batch']:,}", "prompt": f"{r['prompt_tokens']:,}", "output": f"{r['output_tokens']:,}",
               "low": render.per_user_figure(expected * (1 - band)), "high": render.per_user_figure(expected * (1 + band)), "gap": str(gap)}  # fmt: skip
    single = _at_load(turn, args, r, 1)
    if turn.ask.observed_scope == "total" and turn.slots.concurrency is None:  # a total measured: against the full queue's total
        return _finish(turn, _observed_total(turn, args, r, observed, band))
    if r["effective_batch"] == 1:  # one stream: its bandwidth ceiling belongs to the verdict, then stream against aggregate
        verdict = turn.text(serving_text(f"{lead}verdict_single.{kind}", **figures, ceiling=render.per_user_figure(single_ceiling(turn, r))))
        return _finish(turn, "\n\n".join([verdict, *single_stream_lines(turn, args, r, "normal" if turn.ask.claimed_rate else kind), _ceiling(turn, r), *_details(turn, r)]))
    parts = [turn.text(serving_text(f"{lead}verdict.{kind}", **figures))]
    parts.append(turn.text(serving_text("normal_why_bandwidth", weights=number(r["weights_gb_per_gpu"]), single=render.per_user_figure(render.average_per_user(single)),
                                        users=f"{r['effective_batch']:,}")))  # fmt: skip
    card = turn.catalog.find_gpu(r["gpu"])
    if card is not None and card.bf16_tflops and card.bf16_tflops * 1e3 / card.bandwidth_gbs < WORDING.data["weak_prefill_flops_per_byte"]:
        parts.append(turn.text(serving_text("normal_why_prefill", gpu=card.name, tflops=number(card.bf16_tflops), bandwidth=number(card.bandwidth_gbs),
                                            ttft=number(r["ttft_ms"]))))  # fmt: skip
    if turn.ask.reasoning_model:
        parts.append(turn.text(serving_text("normal_why_reasoning")))
    parts += _squeeze_note(turn, r)
    parts.append(turn.text(serving_text("normal_levers")))
    if kind == "low" and not turn.ask.claimed_rate:  # what usually explains a shortfall on this setup (quantised kernels, eager mode, PCIe topology)
        parts.append(_slow_checks(turn, r))
    parts.append(_ceiling(turn, single))  # one user's ceiling: the weights a single stream reads (an MoE's active experts)
    return _finish(turn, "\n\n".join([*filter(None, parts), *_details(turn, r)]))


def _observed_total(turn: Turn, args: dict, r: dict, observed: float, band: float) -> str:
    """ "Our batch job does 2k tok/s on 8 A100s, is that normal?": a total measured with no users said is set against the
    deployment's total with every sequence that fits in flight (what a full queue runs), per hour too, then the figures."""
    full = _at_load(turn, args, r, max(r["max_batch_fits"], 1))
    expected = full["output_tokens_per_s_total"]
    kind = "low" if observed < expected * (1 - band) else "high" if observed > expected * (1 + band) else "normal"
    lead = "claim_" if turn.ask.claimed_rate else "normal_"
    verdict = turn.text(serving_text(f"{lead}verdict_total.{kind}", observed=number(observed), expected=number(expected),
                                     per_hour=turn.t(number(expected * 3600 / 1e6, 2), number(expected * 3600 / 1e4)), ratio=number(observed / max(expected, 1e-9), 2),
                                     model=Text(**full["model_label"]), setup=serving_text("setup", count=full["num_gpus"], gpu=full["gpu"]),
                                     engine=render.engine_label(full["engine"]), users=f"{full['effective_batch']:,}",
                                     prompt=f"{full['prompt_tokens']:,}", output=f"{full['output_tokens']:,}"))  # fmt: skip
    parts = [verdict]
    if kind == "low" and not turn.ask.claimed_rate:
        parts.append(_slow_checks(turn, full))
    return "\n\n".join([*filter(None, parts), *_details(turn, full)])


def single_stream_lines(turn: Turn, args: dict, r: dict, kind: str) -> list[str]:
    """One stream measured: the card's aggregate at a moderate load (what "thousands of tokens/s" means), the checks of
    how the figure was obtained (knowledge/trap_checks.yaml speed.checks_single), then what makes one stream faster."""
    checks = trap_checks().speed
    batch = min(checks.aggregate_batch, max(r["max_batch_fits"], 1))
    parts = []
    if batch > 1:
        full = _at_load(turn, args, r, batch)
        parts.append(turn.text(serving_text("normal_aggregate", gpu=render.card_name(turn, r["gpu"]), batch=f"{full['effective_batch']:,}",
                                            total=number(full["output_tokens_per_s_total"]), each=render.per_user_figure(render.average_per_user(full)),
                                            single=render.per_user_figure(render.average_per_user(r)), ratio=number(full["output_tokens_per_s_total"] / max(render.average_per_user(r), 1e-9), 1),
                                            ttft=number(full["ttft_ms"]))))  # fmt: skip
    items = [item for check in checks.checks_single if (item := _single_check(turn, r, check.id))]
    if kind == "low":
        features = _setup_features(turn, r)
        items += [turn.text(serving_text(f"slow_check.{c.id}", format=str(r.get("weights_format") or "AWQ/GPTQ").upper(), count=r["num_gpus"]))
                  for c in checks.checks_low if c.when is not None and c.when in features]  # fmt: skip
    if items:
        parts.append(turn.text(serving_text("single_checks_lead")) + "\n" + "\n".join(f"- {item}" for item in items))
    if turn.ask.reasoning_model:
        parts.append(turn.text(serving_text("normal_why_reasoning")))
    parts.append(turn.text(serving_text("normal_levers_single")))
    return parts


def single_ceiling(turn: Turn, r: dict) -> float:
    """Bandwidth ÷ weight bytes read per token per GPU: the most one stream decodes on this setup (0 when unknown)."""
    ceiling = read_ceiling(r, turn.catalog.find_gpu(r["gpu"]))
    return ceiling.tokens_per_s if ceiling is not None else 0.0


def _single_check(turn: Turn, r: dict, check: str) -> str:
    """One check of a single-stream measurement; the card's other variant only when the catalog has one with less bandwidth."""
    if check != "variant":
        return turn.text(serving_text(f"slow_check.{check}", format="", count=r["num_gpus"]))
    variant = turn.catalog.find_gpu(trap_checks().speed.variants.get(_gpu_id(turn, r), ""))
    card = turn.catalog.find_gpu(_gpu_id(turn, r))
    bound = read_ceiling(r, variant)
    if bound is None or card is None or variant.bandwidth_gbs >= card.bandwidth_gbs:
        return ""
    ceiling = bound.tokens_per_s
    return turn.text(serving_text("slow_check.variant", gpu=card.name, variant=variant.name, variant_bandwidth=number(variant.bandwidth_gbs),
                                  bandwidth=number(card.bandwidth_gbs), ceiling=render.per_user_figure(ceiling)))  # fmt: skip


def _gpu_id(turn: Turn, r: dict) -> str:
    found = turn.catalog.find_gpu(r["gpu"])
    return found.id if found is not None else r["gpu"]


def _setup_features(turn: Turn, r: dict) -> set[str]:
    """What the setup estimated is, in the terms knowledge/trap_checks.yaml's speed checks name."""
    card = turn.catalog.find_gpu(r["gpu"])
    features = set()
    if str(r.get("weights_format") or "").startswith(("awq", "gptq", "int4")) or turn.ask.quantised:
        features.add("quantised")
    if r["num_gpus"] > 1 and r.get("tp", r["num_gpus"]) > 1 and card is not None and not card.nvlink_gbs:
        features.add("tp_over_pcie")
        if card.segment == "consumer":
            features.add("consumer_tp")
    return features


def _slow_checks(turn: Turn, r: dict) -> str:
    """The checks that usually explain a low measurement on this setup, from data, most likely first."""
    features = _setup_features(turn, r)
    fmt = str(r.get("weights_format") or "AWQ/GPTQ").upper()
    items = [turn.text(serving_text(f"slow_check.{check.id}", format=fmt, count=r["num_gpus"]))
             for check in trap_checks().speed.checks_low if check.when is None or check.when in features]  # fmt: skip
    return turn.text(serving_text("slow_checks_lead")) + "\n" + "\n".join(f"- {item}" for item in items)


def _ceiling(turn: Turn, r: dict) -> str:
    """The single-user bound the card's bandwidth sets: the weights each GPU reads per token at its bandwidth."""
    card = turn.catalog.find_gpu(r["gpu"])
    bound = read_ceiling(r, card)
    if bound is None:
        return ""
    return turn.text(serving_text("normal_ceiling", count=r["num_gpus"], gpu=card.name, ceiling=render.per_user_figure(bound.tokens_per_s),
                                  bandwidth=number(card.bandwidth_gbs), weights=number(weights_read_gb(r))))  # fmt: skip


def squeeze_report(turn: Turn) -> str:
    """Free memory per GPU after the weights → the sequences that fit at the stated context; when that is a handful
    (or nothing fits), the cause with its arithmetic and what frees room, each with the sequences it makes fit."""
    model = turn.model_reference()
    if model is None:
        return ""
    args = {**plan.base_args(turn, model), "batch": 1}
    args.pop("target_tokens_per_s_per_user", None)
    args.pop("target_ttft_ms", None)
    first = estimate(turn, args)
    if first.does_not_fit:
        found = turn.catalog.find_gpu(args["gpu"])
        lead = serving_text("kv_squeeze_no_fit", model=turn.catalog.model(model).name if turn.catalog.find_model(model) else model,
                            precision=(args.get("precision") or plan.BASE_PRECISION).upper(), memory=number(args.get("gpu_memory_gb") or found.memory_gb) if found else "?",
                            gpu=render.card_name(turn, args["gpu"]), count=args.get("num_gpus") or 1)  # fmt: skip
        return "\n\n".join([turn.text(lead), *_squeeze_fixes(turn, args, None)])
    if not first.ok:
        return ""
    r = first.result
    if not _squeezed(r, reported=True):  # roomy: memory is ruled out with the same arithmetic, and the slowdown's usual cause named
        return turn.text(kv_squeeze_text(turn, r, key="kv_roomy_oom" if turn.ask.reports_oom else "kv_roomy"))
    return "\n\n".join([turn.text(kv_squeeze_text(turn, r)), *_squeeze_fixes(turn, args, r)])


def _squeeze_fixes(turn: Turn, args: dict, r: dict | None) -> list[str]:
    """Lower-bit weights, an FP8 KV cache, twice the GPUs in tensor parallel, a larger card: the sequences each fits."""
    count = args.get("num_gpus") or 1
    card = render.card_name(turn, args["gpu"])
    current = (r or {}).get("weights_format") or args.get("precision") or plan.BASE_PRECISION
    lower = "fp8" if plan.has_fp8(turn, args["gpu"]) and current not in ("fp8", "awq-int4") else "awq-int4"
    trials: list[tuple[Text, dict]] = []
    if current != lower:
        trials.append((serving_text("fix_precision", precision=lower.upper(), count=count, gpu=card), {"precision": lower}))
    if args.get("kv_precision") != "fp8" and r is not None:
        trials.append((serving_text("fix_kv_fp8"), {"kv_precision": "fp8"}))
    if count * 2 <= plan.TP_SIZES[-1]:
        trials.append((serving_text("fix_more_gpus", count=count * 2, gpu=card), {"num_gpus": count * 2, "tp": count * 2}))
    here = turn.catalog.find_gpu(args["gpu"])
    here_gb = args.get("gpu_memory_gb") or (here.memory_gb if here is not None else None)
    for gpu in WORDING.data["larger_cards"]:
        bigger = turn.catalog.find_gpu(gpu)
        if bigger is not None and here_gb is not None and bigger.memory_gb > here_gb:
            trials.append((serving_text("fix_larger_card", count=count, gpu=bigger.name), {"gpu": gpu, "gpu_memory_gb": None}))
            break
    options = []
    for what, change in trials:
        e = estimate(turn, {**args, **change})
        if e.ok:
            options.append(serving_text("kv_squeeze_option", what=what, fits=f"{e.result['max_batch_fits']:,}"))
    if not options:
        return []
    listed = Text(en="; ".join(o.en for o in options), zh="；".join(o.zh for o in options))
    return [turn.text(serving_text("kv_squeeze_fixes", options=listed))]


def _finish(turn: Turn, body: str) -> str:
    related(turn, f"serving throughput {turn.message}")
    return with_stated_card(turn, body)


def with_stated_card(turn: Turn, body: str) -> str:
    """The sentence that says a stated memory was used, right after the answer's first paragraph."""
    note = stated_card(turn, turn.slots.gpus[0]).note if turn.slots.gpus else ""
    if not note:
        return body
    first, _, rest = body.partition("\n\n")
    return "\n\n".join(filter(None, [first, note, rest]))


KV_BUDGET = Wording("serving", "kv_budget")
BF16_BYTES = 2  # bytes per parameter of BF16 weights (GB per billion parameters)
CLEARLY_FITS = 0.8  # BF16 weights under this share of a card's memory fit it: only closer calls are estimated
STAND_IN_BY_MARKET = {"cn": "l20", "global": "l40s"}  # a 48 GB card named only by its memory: the PCIe card buyable there


def _stand_in_card(turn: Turn) -> str | None:
    """"one 48GB card" with no card named: the 48 GB PCIe card a buyer in the user's market gets."""
    memory = turn.slots.gpu_memory_gb
    card = turn.catalog.find_gpu(STAND_IN_BY_MARKET["cn" if turn.china_buyer else "global"])
    return card.id if memory and card is not None and card.memory_gb == memory else None


def outgrows_one_card(turn: Turn) -> bool:
    """"32B on one 48 GB card for 50 users?": a load on one card (named, or only its memory) whose BF16 weights do not
    fit it. The answer is the KV budget in FP8 and 4-bit weights on one and two cards, not a count of BF16 cards."""
    s = turn.slots
    if "estimate_throughput" not in turn.registry.names() or not s.concurrency or s.tp or s.precision or s.request_rate is not None \
            or turn.ask.throughput_scope == "total":
        return False
    if turn.ask.asks_count or turn.ask.serving_asks == "gpu_count":  # "how many H200s?" is sized by the load
        return False
    if s.gpu_count != 1 and not (s.gpu_count is None and not s.gpus):  # one card said ("a single L40S"), or only its memory
        return False
    if len(s.gpus) > 1 or (not s.gpus and _stand_in_card(turn) is None) or task_of(turn)[0] != "inference":
        return False
    model = turn.model_reference()
    if model is None:
        return False
    gpu = s.gpus[0] if s.gpus else _stand_in_card(turn)
    spec, card = turn.catalog.find_model(model), turn.catalog.find_gpu(gpu)
    if spec is None or card is None or spec.params_b * BF16_BYTES < CLEARLY_FITS * card.memory_gb:
        return False  # plainly fits (or unknown): no estimate is spent on the question
    args = _base_args_for(turn, model, gpu)
    if not estimate(turn, {**args, "precision": plan.BASE_PRECISION, "batch": 1}).does_not_fit:
        return False  # the 16-bit weights fit: the ordinary answer sizes it
    # in the card's own format (FP8 on an L40S) the stated load decides: weights and every session held on one card are
    # answered as served; weights that do not fit, or sessions that queue, get the KV budget per format and card count
    served = estimate(turn, {**args, "precision": args.get("precision") or plan.BASE_PRECISION, "batch": s.concurrency})
    return served.does_not_fit or (served.ok and served.result["max_batch_fits"] < s.concurrency)


def _base_args_for(turn: Turn, model: str, gpu: str) -> dict:
    args = plan.base_args(turn, model, stand_in=gpu)
    if not turn.slots.gpus:
        args.update(gpu_memory_gb=None)  # the stand-in has the stated memory itself
    return args


def kv_budget_answer(turn: Turn) -> str:
    """The verdict (BF16 does not fit one card), then for FP8 (or INT8) and 4-bit weights on one and two cards: the KV
    budget per card and the sessions of the stated length it holds; then how many cards carry the stated users."""
    model = turn.model_reference()
    gpu = turn.slots.gpus[0] if turn.slots.gpus else _stand_in_card(turn)
    args = _base_args_for(turn, model, gpu)
    users = turn.slots.concurrency
    bf16 = estimate(turn, {**args, "precision": plan.BASE_PRECISION, "batch": 1})
    error = (bf16.outcome.error or {})
    card = render.card_name(turn, gpu)
    lower = "fp8" if plan.has_fp8(turn, gpu) else plan.WEIGHT_ONLY_FALLBACK
    apply_chat_floor(turn, args)  # the fleet is counted at the chat floor (or the user's target), not at any speed
    rows, best, fitting = [], None, {}
    for precision in (lower, "awq-int4"):
        for count in (1, 2):
            e = estimate(turn, {**args, "precision": precision, "num_gpus": count, "tp": count, "batch": users})
            if not e.ok:
                rows.append([precision.upper(), str(count), "—", KV_BUDGET.say(turn, "no_fit"), "—"])
                if count == 1 and precision == lower and e.does_not_fit:  # the lower bits do not fit one card either: they decide
                    error = e.outcome.error or {}
                continue
            fitting.setdefault(precision, count)
            r = e.result
            at_target = min(r.get("max_concurrency_at_target") or 0, r["max_batch_fits"])
            rows.append([precision.upper(), str(count), number(r["kv_free_gb_per_gpu"], 1), f"{r['max_batch_fits']:,}", f"{at_target:,}"])
            copies = math.ceil(users / max(r["max_batch_fits"], 1))  # the fleet the KV cache needs; its speed is said beside it
            if r["max_batch_fits"] and (best is None or copies * count < best[0]):
                best = (copies * count, precision, count, copies)
    tokens = f"{(args.get('prompt_tokens') or 1024) + (args.get('output_tokens') or 256):,}"
    # the estimator's reason in its first sentence: its remedies (more GPUs, 4-bit weights) are the table below
    why = Text(en=next(iter(sentences(str(error.get("en", "")))), ""), zh=next(iter(sentences(str(error.get("zh", "")))), ""))
    decides = lower if fitting.get(lower) != 1 else plan.BASE_PRECISION  # the smallest format the user would run that does not fit
    lead = KV_BUDGET.text("lead" if fitting else "lead_none", model=turn.catalog.model(model).name if turn.catalog.find_model(model) else model, card=card,
                          why=why, format=decides.upper(), fits=_fits_said(fitting))  # fmt: skip
    parts = [turn.text(lead)]
    if not turn.slots.gpus:
        turn.assumptions.append(turn.text(KV_BUDGET.text("stand_in", card=card, memory=number(turn.slots.gpu_memory_gb or 0))))
    header = [KV_BUDGET.say(turn, "weights"), KV_BUDGET.say(turn, "cards"), KV_BUDGET.say(turn, "kv_per_card"),
              turn.text(KV_BUDGET.text("sessions", tokens=tokens)), turn.text(KV_BUDGET.text("at_target", target=render.targets(args) or render.NOTHING))]  # fmt: skip
    parts.append(table(header, rows))
    if best is not None:
        total, precision, count, copies = best
        held = estimate(turn, {**args, "precision": precision, "num_gpus": total, "tp": count, "batch": users})
        speed = held.result["tokens_per_s_per_user_streaming"] if held.ok else 0.0
        slow = bool(args.get("target_tokens_per_s_per_user")) and speed < args["target_tokens_per_s_per_user"]
        parts.append(turn.text(KV_BUDGET.text("fleet_slow" if slow else "fleet", users=f"{users:,}", total=total, card=card, precision=precision.upper(),
                                              plan=render.plan_text(count, copies), per_user=number(speed), target=render.targets(args) or render.NOTHING)))  # fmt: skip
        parts += render.in_servers(turn, total)
    return _finish(turn, "\n\n".join(parts))


def _fits_said(fitting: dict[str, int]) -> Text:
    """What does fit, each lower-bit format on the fewest cards (of one and two) that hold it, fewest cards first:
    "AWQ-INT4 weights on one card or FP8 weights on 2 cards"."""
    said = [KV_BUDGET.text("fit_one" if count == 1 else "fit_more", precision=precision.upper(), count=count) for precision, count in sorted(fitting.items(), key=lambda item: item[1])]
    joiner = KV_BUDGET.text("fit_joiner")
    return Text(en=joiner.en.join(t.en for t in said), zh=joiner.zh.join(t.zh for t in said))


def sizes_gpu_count(turn: Turn, weighs_precision: bool = True) -> bool:
    """ "How many H100s for 200 users with TTFT under 500 ms?": a count of one named card for a serving load or
    latency target is sized by the serving estimate, which checks the targets (the recommender checks memory);
    so is "how many chats can it hold?" asked of one named card.
    With ``weighs_precision``, "on 4 A100s for 50 users, should we use FP8?" is weighed here too."""
    s = turn.slots
    if "estimate_throughput" not in turn.registry.names() or len(s.gpus) != 1 or task_of(turn)[0] != "inference":
        return False
    if weighs_precision and plan.weighs_a_precision(turn):
        return True
    asked = turn.ask.serving_asks
    if asked == "concurrency":  # "how many chats can 4 A100s hold?": the KV cache's sequences, with their speeds
        return True
    if s.request_rate is not None:  # "QPS 30 on two A100s, enough?": a load to check, whatever the words ask
        return True
    stated_load = s.frame.has("concurrency") or s.frame.has("audience") or isinstance(s.frame.get("speed_target"), float)
    # "what's the TTFT for this?" after a count for a load: the time for that load, not a recommendation by memory
    return stated_load and (asked == "gpu_count" or (asked == "latency" and turn.ask.count_asked_earlier))


# The words routes.yaml take_overs (recommend, memory, max_fit, troubleshoot) may use; the order is the table's.
TAKE_OVER_CONDITIONS = {
    "outgrows_one_card": outgrows_one_card,  # "32B on one 48 GB card for 50 users?": the KV budget in lower-bit weights
    "sizes_gpu_count": sizes_gpu_count,  # a count of one named card for a serving load (or a precision weighed for it)
    "sizes_gpu_count_for_load": lambda turn: sizes_gpu_count(turn, weighs_precision=False),  # a sizing: the load alone
    # a mainland purchase of a part not sold new there: the task's own answer sizes the parts sold there instead
    "replaces_named_in_mainland": mainland.replaces_named,
    # the troubleshooting intent is itself the report of a problem: serving words and a named model on named cards are
    # enough to check the memory left for the KV cache first (nothing is said when it is roomy)
    "reports_serving_slowdown": lambda turn: plan.reports_serving_slowdown(turn, problem_known=True),
}
TAKE_OVER_WRITERS = {"kv_budget": kv_budget_answer, "serving_estimate": answer, "kv_squeeze": squeeze_report}


def _on_cards_stated(turn: Turn, args: dict, tp: int, needed: int, load: int) -> list[str]:
    """"How many replicas and what TP on our 8 H100s?": the size that carries the load, laid over the cards the user
    has (as many copies of it as they hold), with the users at once those copies carry at the same targets; nothing
    when no count was stated or the stated cards are what the load needs anyway."""
    count = turn.slots.gpu_count
    if not count or count <= needed or count % tp:
        return []
    found = estimate(turn, {**args, "num_gpus": count, "tp": tp, "batch": load})
    if not found.ok:
        return []
    r = found.result
    return [turn.text(serving_text("on_cards_stated", count=count, gpu=r["gpu"], plan=render.plan_text(tp, r["replicas"]), needed=needed,
                                   most=number(r.get("max_concurrency_at_target") or r["max_batch_fits"]), target=render.targets(args) or render.NOTHING))]  # fmt: skip
