"""The memory task's plan: the estimate_memory (or max_fit) arguments a conversation asks for — model, task, precision,
the stated card or its memory, the cards on hand and how they are split, serving load, training options — with the
assumptions those choices rest on. No sentences beyond an assumption; the answer's words are render.py's."""

from __future__ import annotations

from typing import get_args

from advisor.offline.tasks.memory import memory_view
from advisor.offline.tasks.serving.engines import engine_of
from advisor.offline.tasks.serving.serving_card import StatedCard, stated_card
from advisor.offline.tasks.serving.serving_words import serving_text
from advisor.offline.tasks.specs.compare_view import tool_method
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_BY_WORKLOAD, gpus_on_hand, precision_for, zero_stage_of
from tools.recommend.configs import SERVER_GPUS  # one server's GPUs: a tensor-parallel group stays inside one
from tools.memory.schema import Optimizer

WORDING = Wording("memory", "sizing")
SERVING_ENGINES = ("vllm", "sglang")  # paged KV and chunked prefill, which the estimator models as vLLM
DEFAULT_CONTEXT = 4096  # estimate_memory's default tokens per sequence
STANDARD_TRAINING_GPU = "h100-sxm"  # the 80 GB card a job is weighed on when the question names none (full fine-tunes, limits)


def training_memory_options(turn: Turn, args: dict, count: int | None) -> None:
    """CPU offload and activation recomputation, when the user names them (training only)."""
    s = turn.slots
    if s.offload:
        args["offload"] = "optimizer_and_params" if args.get("zero_stage") == 3 else "optimizer"
        if not args.get("zero_stage"):
            args["zero_stage"] = 2 if (count or 1) > 1 else 0
        s.mark("sharding")
    if s.recompute:
        args["recompute"] = s.recompute


def memory_args(turn: Turn, model: str, task: str) -> tuple[dict, StatedCard | None]:
    """estimate_memory's arguments for ``model`` doing ``task``, and the stated card (its memory as the user said)."""
    s = turn.slots
    s.every_user = task == "inference" and memory_view.asks_about_kv_cache(turn)  # "the KV cache for 8 users": 8 sequences, the worst case
    count = gpus_on_hand(turn)
    card = stated_card(turn, s.gpus[0]) if s.gpus else None  # "a modded 48 GB 4090": the stated memory, not the catalog's
    args = {
        "model": model,
        "mode": "inference" if task == "inference" else "training",
        "method": tool_method(task),
        "precision": precision_for(turn, task),
        "context": s.context_length,
        "batch": s.batch_size or (s.concurrency if task == "inference" else None),  # "16 users": 16 sequences at once
        "gpu": card.gpu if card else None,
        "gpu_memory_gb": card.memory_gb if card else s.gpu_memory_gb,  # "a 10gb card": the fit is checked against what was said
        "num_gpus": count,
        "zero_stage": zero_stage_of(turn) if (count or 1) > 1 else None,
        "kv_precision": s.kv_precision,
        "tp": s.tp,
        "pp": s.pp,
    }
    if args["mode"] == "inference" and s.concurrency and not s.batch_size and (engine_of(turn) or "vllm") in SERVING_ENGINES:
        # users served at once means a serving engine: paged KV cache and chunked prefill, not one batched forward pass
        args["engine"] = "vllm"
        turn.assume(*WORDING.both("assume_serving_engine", sequences=s.concurrency))
    elif args["mode"] == "inference" and not s.batch_size and (s.concurrency or 1) > 1:
        # another engine: users still arrive over time, so one prompt is prefilled while the others generate
        args["prefill_chunk"] = args["context"] or DEFAULT_CONTEXT
        turn.assumptions.append(turn.text(serving_text("staggered")))
    if args["gpu_memory_gb"] and s.frame.has("other_gpu"):  # "my rtx 3080, 10G": the card is unlisted, its memory is not
        turn.ignore("other_gpu", *WORDING.pair("sizing_phrases.memory.not_in_the_catalog_so"))
    if args["mode"] == "inference" and count and count > 1 and not s.tp and not s.pp:
        args["tp"] = _replica_tp(turn, args, count)
        if args["tp"] == count and count > SERVER_GPUS and count % SERVER_GPUS == 0:
            # one copy over several servers: tensor parallel inside each, pipeline stages across (the fit plan's layout)
            args["tp"], args["pp"] = SERVER_GPUS, count // SERVER_GPUS
            turn.assume(*WORDING.both("sizing_phrases.memory.servers_split_the_model", count=count, tp=args["tp"], pp=args["pp"]))
        elif args["tp"] == count:
            turn.assume(*WORDING.both("sizing_phrases.memory.the_gpus_split_the_model", count=count))
        else:  # a model that fits a smaller group: one copy per group, the other cards serve more users, not a wider split
            key = "replicas_one_per_gpu" if args["tp"] == 1 else "replicas_on_the_gpus"
            turn.assume(*WORDING.both(f"sizing_phrases.memory.{key}", count=count, tp=args["tp"], replicas=count // args["tp"]))
    if args["mode"] == "training" and args["method"] == "full" and (count or 1) > 1 and args["zero_stage"] is None and not s.offload:
        # several GPUs and no sharding named: a consultant shards everything (ZeRO-3/FSDP), never replicates 16 B/param
        args["zero_stage"] = 3
        turn.assume(*WORDING.both("sizing_phrases.memory.zero_3_fsdp_across_the", count=count))  # fmt: skip
    if args["mode"] == "training" and args["method"] == "full" and not (args["gpu"] or args["gpu_memory_gb"] or count):
        # "how much memory for a full fine-tune of a 72B?": a total no single card holds is no answer on its own, so it is
        # weighed against the standard training card (80 GB), which gives the cards ZeRO-3 needs and what fits instead
        turn.assume(*WORDING.pair("sizing_phrases.memory.gpu_h100_80gb_none_named"))
        args["gpu"] = STANDARD_TRAINING_GPU
    if args["mode"] == "training":
        training_memory_options(turn, args, count)
    if args["mode"] == "training" and s.optimizer:
        args["optimizer"] = s.optimizer if s.optimizer in get_args(Optimizer) else None
        if not args["optimizer"]:  # Adafactor: its factored states are not modelled
            turn.ignore("optimizer", *WORDING.both("sizing_phrases.memory.is_not_modelled_so_the", optimizer=s.optimizer))
    return args, card


def _replica_tp(turn: Turn, args: dict, count: int) -> int:
    """The tensor-parallel group a serving job runs in on ``count`` stated GPUs: the smallest group (a divisor of the
    count, within one server) whose estimate fits, so a small model is served as data-parallel replicas; ``count``
    (one copy split over every card) when no smaller group holds it. Probes are not answers, so they are not recorded."""
    for tp in (d for d in range(1, min(count, SERVER_GPUS) + 1) if count % d == 0 and d < count):
        probe = turn.registry.call("estimate_memory", {k: v for k, v in {**args, "tp": tp}.items() if v is not None})
        if probe.ok and probe.result.get("verdict") == "fits":
            return tp
    return count


def working_format(turn: Turn, estimate: dict) -> dict | None:
    """The first route of the fit plan (the body's order) that serves the job on the user's own cards in another format,
    when the user left the format open: the answer to "can my cards run it?" is then yes, in that format, and the answer's
    figures are that format's. None when the job fits as sized, or no such route exists."""
    plan = estimate.get("fit_plan")
    if not plan or estimate["mode"] != "inference" or turn.ask.workload.precision is not None or turn.ask.quality_first:
        return None
    yours = plan["your_count"]
    for route in plan["routes"]:
        same_cards = route["gpu"] == estimate["gpu"] and route["key"] != "smaller_model" and route.get("per_gpu_gb")
        if same_cards and (route["fits_your_count"] if yours > 1 else route["count"] == 1):
            return route
    return None


def route_args(args: dict, route: dict, cards: int) -> dict:
    """estimate_memory's arguments for ``route`` on the user's ``cards``: the request as planned, in the route's formats and
    layout, so the breakdown shown is the estimate the lead's figure came from."""
    changed = {key: route[key] for key in ("precision", "kv_precision") if route.get(key)}
    return {**args, **changed, "num_gpus": cards if cards > 1 else None, "tp": route["tp"], "pp": route["pp"]}


def asks_limits(turn: Turn, args: dict) -> bool:
    """"what is the largest batch / context that fits?": max_fit answers, unless an OOM on a stated card asks for its breakdown."""
    return turn.intent == "max_fit" and not (turn.ask.reports_oom and args["gpu"])


def limits_args(turn: Turn, args: dict) -> dict:
    """max_fit's arguments: the estimate's, weighed on the standard training card when none is named (said as an assumption)."""
    if not args["gpu"]:
        turn.assume(*WORDING.pair("sizing_phrases.memory.gpu_h100_80gb_none_named"))
        args["gpu"] = STANDARD_TRAINING_GPU
    return {k: v for k, v in args.items() if k != "num_gpus" or v}


# ---- every training method asked, each sized (methods_view) ----
TRAINING_TASKS = ("full_finetune", "pretrain", "lora", "qlora")


def methods_asked(turn: Turn) -> list[str]:
    """The training methods the message names, in its order, each once ("finetune" alone is no method of its own)."""
    named = [TASK_BY_WORKLOAD[w] for w in turn.slots.workloads if w in TASK_BY_WORKLOAD and w not in ("finetune", "train")]
    return list(dict.fromkeys(t for t in named if t in TRAINING_TASKS))


def compares_methods(turn: Turn) -> bool:
    """"Full fine-tune, LoRA or QLoRA: how much memory each?": two or more methods asked, each sized (methods_view)."""
    return len(methods_asked(turn)) >= 2


def kv_cache_missing(turn: Turn) -> str | None:
    """What a KV-cache question with no model lacks to be sized (a key of text.yaml sizing_phrases.ask_for_model.kv_cache):
    "model" when the context was stated, "model_and_context" when neither was; None for any other question."""
    if not memory_view.asks_about_kv_cache(turn):
        return None
    return "model" if turn.slots.context_length else "model_and_context"
