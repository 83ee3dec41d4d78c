"""Compare an estimate with a GPU: capacity line, fits / tight / does-not-fit, and the main lever."""

from __future__ import annotations

from knowledge.bilingual import Text
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from knowledge.wording import shipped
from tools.common import LineItem
from tools.memory.constants import CAPACITY_UNIT_BYTES, GB, TIGHT_FRACTION
from tools.memory.items import Part, gb
from tools.memory.setup import STATED_CARD, Setup

TEXT = shipped("memory_verdict_text.yaml")


def capacity_bytes(gpu: GPU) -> float:
    return gpu.memory_gb * CAPACITY_UNIT_BYTES


def capacity_budget(s: Setup, gpu: GPU) -> float:
    """The bytes per GPU a plan is checked against: nominal capacity, the GPU's share of it (Apple), and vLLM's
    utilisation budget of that. capacity_line words the same figure."""
    budget = capacity_bytes(gpu) * getattr(gpu, "gpu_usable_fraction", 1.0)  # a card known by its memory alone has no such field
    return budget * s.utilization if s.mode == "inference" and s.engine == "vllm" else budget


def capacity_gb(budget: float) -> float:
    """The capacity figure an estimate reports (``gpu_capacity_gb``), from capacity_budget's bytes."""
    return round(budget / GB, 4)


def capacity_line(s: Setup, gpu: GPU) -> tuple[LineItem, float]:
    """The usable memory per GPU: nominal capacity, or vLLM's utilisation budget of it (capacity_budget's figure)."""
    raw = capacity_bytes(gpu)
    nominal = f"{gpu.memory_gb:g}"
    formula, formula_zh = TEXT.text("capacity.formula", gpu=gpu.name, nominal=nominal, raw=gb(raw)).model_dump().values()
    budget = raw
    label_en, label_zh = TEXT.text("capacity.label", gpu=gpu.name, nominal=nominal).model_dump().values()
    fraction = getattr(gpu, "gpu_usable_fraction", 1.0)  # a card known by its memory alone has no such field
    if fraction < 1:  # Apple: macOS caps the GPU's share of unified memory
        budget = raw * fraction
        share = f"{fraction:.0%}"
        formula, formula_zh = fact_note("apple_capacity_formula", gpu=gpu.name, total=nominal, fraction=f"{fraction:g}",
                                        usable_gib=f"{gpu.memory_gb * fraction:g}", usable=gb(budget)).model_dump().values()  # fmt: skip
        label_en, label_zh = fact_note("apple_capacity_label", gpu=gpu.name, share=share, total=nominal).model_dump().values()
    if s.mode == "inference" and s.engine == "vllm":
        usable, budget = budget, budget * s.utilization
        added = TEXT.text("capacity.vllm_formula", utilization=f"{s.utilization:g}", usable=gb(usable), budget=gb(budget))
        formula, formula_zh = formula + added.en, formula_zh + added.zh
        label_en, label_zh = TEXT.text("capacity.vllm_label", label=Text(en=label_en, zh=label_zh)).model_dump().values()
    budget = capacity_budget(s, gpu)  # the figure worded above, computed once for the estimate and the bytes-only fit
    item = LineItem(key="gpu_capacity", label=Text(en=label_en, zh=label_zh), value=capacity_gb(budget), unit="GB",
                    formula=formula, formula_zh=formula_zh)  # fmt: skip
    return item, budget


# At most this much memory is left to macOS by the example `iogpu.wired_limit_mb` (an eighth of a smaller Mac, at
# least 2 GiB): users who raise the limit keep a few GiB for the system (antirez/ds4#46 keeps 6 of 96 GB).
APPLE_OS_RESERVE_GIB = 8


def usable_memory_note(gpu: GPU | None) -> Text | None:
    """What the user must know when the GPU cannot use all of the memory the machine is sold with (Apple)."""
    fraction = getattr(gpu, "gpu_usable_fraction", 1.0)
    if gpu is None or fraction >= 1:
        return None
    reserve = min(APPLE_OS_RESERVE_GIB, max(2.0, gpu.memory_gb / 8))
    return fact_note("apple_usable_memory", gpu=gpu.name, share=f"{fraction:.0%}", total=f"{gpu.memory_gb:g}",
                     usable_gib=f"{gpu.memory_gb * fraction:g}", usable=f"{gpu.memory_gb * fraction * CAPACITY_UNIT_BYTES / GB:.1f}",
                     suggested_mib=f"{(gpu.memory_gb - reserve) * 1024:.0f}", reserve_gib=f"{reserve:g}")  # fmt: skip


def unit_note(gpu: GPU | None) -> Text:
    """The one sentence on units shown with memory figures: decimal GB, cards sold in binary GiB, nvidia-smi in MiB."""
    nominal = gpu.memory_gb if gpu is not None else 80
    real = nominal * CAPACITY_UNIT_BYTES / GB
    named = gpu is not None and gpu.id != STATED_CARD  # a card known by its memory alone has no name to repeat
    card = TEXT.text("unit_note.named_card", gpu=gpu.name, nominal=f"{nominal:g}") if named else TEXT.text("unit_note.any_card", nominal=f"{nominal:g}")
    return TEXT.text("unit_note.sentence", card=card, nominal=f"{nominal:g}", real=f"{real:.1f}")


def verdict(total: float, budget: float) -> tuple[str, float]:
    headroom = (budget - total) / budget * 100
    if total <= TIGHT_FRACTION * budget:
        return "fits", headroom
    return ("tight" if total <= budget else "does_not_fit"), headroom


LEVER_GROUP = {
    "prefill_activations": "prefill", "attention_scores": "prefill", "logits": "logits", "kv_growth_copy": "kv_cache",
    "recompute_working_set": "activations",
}  # fmt: skip


SHARDED_FROM_STAGE = {"optimizer_states": 1, "gradients": 2, "weights": 3}  # the ZeRO stage that shards each part


def main_lever(s: Setup, parts: list[Part]) -> Text:
    largest = max((p for p in parts if p.bytes > 0), key=lambda p: p.bytes)
    group = LEVER_GROUP.get(largest.key, largest.key)
    if s.mode == "inference" and group == "logits":
        group = "prefill"
    levers = TEXT.data["levers"][s.mode]
    lever = TEXT.text(f"levers.{s.mode}.{group if group in levers else 'weights'}")
    if s.mode == "training" and s.dp > 1 and s.zero_stage >= SHARDED_FROM_STAGE.get(group, 4):  # the usual lever is already pulled
        lever = TEXT.text("already_sharded", part=Text(en=largest.en, zh=largest.zh), stage=s.zero_stage, dp=s.dp)
    return lever


def counted_bound(lever: Text, mode: str, count: int | None, gpu: str) -> Text:
    """The lever of a job that does not fit, with the one count of the same card the fit plan found (ZeRO-3/FSDP with
    activation checkpointing for training, tensor/pipeline parallelism for serving). The total divided by one card is no
    second count: activations, logits and the runtime are held whole on every GPU, so it would undercount."""
    key = f"counted_bound.{mode}" if count else "counted_bound.none"
    bound = TEXT.text(key, count=count or 0, gpu=gpu)
    return Text(en=lever.en + bound.en, zh=lever.zh + bound.zh)


RULE_OF_THUMB = TEXT.text("rule_of_thumb")
