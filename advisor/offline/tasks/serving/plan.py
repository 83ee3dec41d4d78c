"""The serving task's plan: the Ask and the conversation's slots turned into the throughput estimator's arguments (the
card, its memory, the count, precision, engine, prompt and output lengths, a per-user or first-token target, a total
throughput as a request rate), and the yes/no questions the router and the answers ask of the message. No wording beyond
an assumption (the card assumed, a context read as one sequence, FP8 chosen); the sentences are render.py's."""

from __future__ import annotations

from advisor.offline.tasks.serving import render
from advisor.offline.tasks.serving.engines import engine_of
from advisor.offline.tasks.serving.serving_card import stated_card
from advisor.offline.tasks.serving.serving_floor import TOTAL_MARK, tool_args
from advisor.offline.tasks.serving.serving_latency import shared_prefix
from advisor.offline.tasks.serving.serving_words import WORDING, serving_text
from advisor.offline.turn import Turn
from advisor.offline.workload import default_rule, say_serving_format, serving_format, task_of
from knowledge.serving import load_serving_data
from knowledge.serving_precision import serving_precision
from tools.recommend.configs import SERVER_GPUS  # a tensor-parallel group stays inside one server

DEFAULT_GPU = "h100-sxm"


DEFAULT_OUTPUT_TOKENS = 256  # the estimator's output length when none is said


TP_SIZES = (1, 2, 4, 8)  # the tensor-parallel sizes engines and 8-GPU servers support


BASE_PRECISION = "bf16"


WEIGHT_ONLY_FALLBACK = "int8"  # the lever on a card without FP8 (A100, T4, V100): weight-only INT8 (INT4 further)


def weighs_a_precision(turn: Turn) -> bool:
    """"Should we use FP8?" with a precision named in this message: a choice to answer, not a setting to use."""
    return turn.reading.frame.has("precision") and turn.ask.weighs_precision


def base_args(turn: Turn, model: str, stand_in: str | None = None) -> dict:
    """The estimate's arguments from the conversation; ``stand_in``: the card to size when only its memory was said."""
    s = turn.slots
    gpu = s.gpus[0] if s.gpus else stand_in
    if gpu is None:
        gpu = DEFAULT_GPU
        turn.assume(*WORDING.pair("serving_phrases.base_args.gpu_h100_none_named"))
    card = stated_card(turn, gpu)  # "our A100s are the 40 GB ones": the user's memory figure wins over the catalog
    args = {
        "model": model,
        "gpu": card.gpu,
        "gpu_memory_gb": card.memory_gb,
        "num_gpus": s.gpu_count,
        "tp": s.tp,
        "precision": s.precision or serving_format(turn, card.gpu),  # the card's usual format, the recommender's rule
        "kv_precision": s.kv_precision,
        "engine": engine_of(turn),
        "batch": s.concurrency or s.batch_size,
        "prompt_tokens": s.frame.get("prompt_tokens"),
        "output_tokens": s.frame.get("output_tokens"),
    }
    say_serving_format(turn, card.gpu, args["precision"])
    _sequence_from_context(turn, args)
    shared_prefix(turn, args)  # a system prompt every request repeats: prefilled once, each request prefills its new tokens
    target = s.frame.get("speed_target")
    if isinstance(target, float) and not turn.ask.observed_in_thread and turn.ask.throughput_scope == "total":
        args[TOTAL_MARK] = target  # "2000 tok/s total for 500 users": the deployment's output, a request rate in disguise
        s.mark("speed_target")
    elif isinstance(target, float) and not turn.ask.observed_in_thread:  # a speed measured and asked about is not a target
        key = (
            "target_ttft_ms"
            if turn.ask.latency_target
            else "target_tokens_per_s_per_user"
        )
        args[key] = target
        s.mark("speed_target")
    s.mark("prompt_tokens", "output_tokens")
    return args


def _sequence_from_context(turn: Turn, args: dict) -> None:
    """ "at 4k context" with no prompt length: the context is one whole sequence, prompt plus output."""
    context = turn.slots.context_length
    if not context or args["prompt_tokens"]:
        return
    output = args["output_tokens"] or 256  # the estimator's default output length
    if context <= output:
        return
    args["prompt_tokens"] = context - output
    turn.slots.mark("context")
    turn.assumptions.append(
        turn.text(serving_text("context_as_sequence", context=f"{context:,}", prompt=f"{context - output:,}", output=f"{output:,}"))
    )
    engine = load_serving_data().engine(args.get("engine") or "vllm")
    if context >= WORDING.data["long_context_tokens"] and engine.prefix_cache_default and turn.ask.shared_prefix is not True:
        # a chat fills a long context turn by turn: the earlier turns are in the prefix cache, not prefilled again
        turn.assumptions.append(turn.text(serving_text("long_context_cached", engine=engine.name, prompt=f"{context - output:,}", source=engine.prefix_cache_source)))


def stated_rate(turn: Turn, args: dict) -> float | None:
    """Requests arriving per second: the rate stated ("50 QPS"), or a total throughput ("2000 tok/s total") divided by the
    output tokens of one request (output tokens/s = rate × output tokens per request); None when neither is stated."""
    if turn.slots.request_rate is not None:
        return turn.slots.request_rate.per_second
    if args.get(TOTAL_MARK):
        return args[TOTAL_MARK] / (args.get("output_tokens") or DEFAULT_OUTPUT_TOKENS)
    return None


def precision_for_count(turn: Turn, args: dict) -> None:
    """The user's precision; else FP8 where the card computes in it (said), else the tool's default."""
    if args.get("precision") or not has_fp8(turn, args["gpu"]):
        return
    args["precision"] = "fp8"
    turn.assumptions.append(turn.text(serving_text("fp8_chosen", gpu=render.card_name(turn, args["gpu"]))))


def layout_for_load(turn: Turn, args: dict) -> tuple[int, dict, dict] | None:
    """The stated cards split for the stated load when the user named no tensor-parallel size: every group size that
    divides the count (within one server) is tried, and of those whose KV caches hold the whole load, the one whose copies
    stream fastest per user wins,
    so four TP=2 copies are chosen over one TP=8 copy when they serve the users better. Returns the chosen size, its
    estimate and the one-copy-over-every-card estimate (the tool's default) it beat; None when that default is best, no
    load of two or more was stated, or the engine splits layers. Probes are not answers, so they are not recorded."""
    count, users = turn.slots.gpu_count, turn.slots.concurrency or 0
    if not count or count < 2 or turn.slots.tp or users < 2 or args.get("tp"):
        return None

    def probe(tp: int | None) -> dict | None:
        request = {key: value for key, value in tool_args({**args, "num_gpus": count, "tp": tp}).items() if value is not None}
        found = turn.registry.call("estimate_throughput", request)
        return found.result if found.ok else None

    wide = probe(None)
    if wide is None:
        return None
    best, best_tp = wide, wide["tp"]
    for tp in (d for d in range(1, min(count, SERVER_GPUS) + 1) if count % d == 0 and d != wide["tp"]):
        found = probe(tp)
        holds = found is not None and found["max_batch_fits"] >= users  # copies whose KV cache leaves users queueing serve fewer
        if holds and found["tokens_per_s_per_user_streaming"] > best["tokens_per_s_per_user_streaming"]:
            best, best_tp = found, tp
    return (best_tp, best, wide) if best_tp != wide["tp"] else None


def format_open(turn: Turn, args: dict) -> bool:
    """The weights' format is the answer's to choose: none was stated, and ``args`` holds 16-bit or the card's default."""
    rule = default_rule(turn, args["gpu"])
    return not turn.slots.precision and args.get("precision") in (None, rule.precision if rule else None)


def is_card_default(turn: Turn, args: dict) -> bool:
    """``args`` runs in the card's default format (FP8 on an H100), chosen because the user named none."""
    rule = default_rule(turn, args["gpu"])
    return rule is not None and args.get("precision") == rule.precision


def lower_bits(turn: Turn, gpu: str) -> str:
    """The first lower-bit step on ``gpu``: FP8 where it computes in FP8, else weight-only INT8."""
    return "fp8" if has_fp8(turn, gpu) else WEIGHT_ONLY_FALLBACK


def lower_steps(turn: Turn, gpu: str) -> tuple[str, ...]:
    """The lower-bit steps tried on ``gpu`` when 16-bit weights do not fit, in order: the card's ladder in
    knowledge/serving_precision.yaml (INT8, then 4-bit on an A100 or a GeForce card; the recommender steps down the
    same one), else the first lower-bit step (FP8 where it computes in FP8)."""
    card = turn.catalog.find_gpu(gpu)
    ladder = serving_precision().ladder(card) if card is not None else ()
    return tuple(rule.precision for rule in ladder) or (lower_bits(turn, gpu),)


def has_fp8(turn: Turn, gpu: str) -> bool:
    found = turn.catalog.find_gpu(gpu)
    return bool(found is not None and found.fp8_tflops)


def estimates_setup(turn: Turn) -> bool:
    """A model on a stated number of named cards for inference ("Llama 70B on 4x A100 at 64 users"): the serving estimate can
    put numbers beside a judgement of a technique. A card with no count is no setup: one card would be a guess."""
    s = turn.slots
    return ("estimate_throughput" in turn.registry.names() and bool(s.models) and bool(s.gpus) and (s.gpu_count is not None or bool(s.tp))
            and task_of(turn)[0] == "inference")  # fmt: skip


def checks_observed_speed(turn: Turn) -> bool:
    """ "We see 15 tok/s per user with 32 users on 4 A100s, is that normal?": a measured speed to judge, with the
    model (named, or only its size: "a 70B AWQ model") and the card named."""
    s = turn.slots
    return ("estimate_throughput" in turn.registry.names() and bool(turn.ask.observed_speed) and _model_given(turn)
            and bool(s.gpus))  # fmt: skip


def _model_given(turn: Turn) -> bool:
    """A model the calculators can size: a catalog model, or a bare size the workload resolved ("a 70B model")."""
    return bool(turn.slots.models) or turn.ask.workload.model is not None


def reports_serving_slowdown(turn: Turn, *, problem_known: bool = False) -> bool:
    """A slowdown report about serving a named model on named cards: the memory left for the KV cache is checked first.
    When the message is already known to report a problem (the troubleshooting intent), serving words suffice."""
    s = turn.slots
    about_serving = turn.ask.speaks_of_serving if problem_known else turn.ask.reports_serving
    return ("estimate_throughput" in turn.registry.names() and about_serving and bool(s.models) and bool(s.gpus)
            and task_of(turn)[0] == "inference")  # fmt: skip


def count_given_since(turn: Turn) -> bool:
    """"only 2 cards though" after "how many A100s for 100 users?": the count asked for is now the user's, so the
    load is served on those cards instead of sized again."""
    return turn.slots.gpu_count is not None and not turn.count_asked and turn.ask.thread_messages > 1
