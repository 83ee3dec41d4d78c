"""What the calculator forms show in each language, and the rules that keep a form valid.

Dropdowns show (label, value) pairs: people read the label in their language, the tool gets the value.
The rules are pure functions of the form's values and of which control the user just changed, so they
are unit-tested without a browser; ``web_calculators`` wires them to the controls' ``input`` events
(user edits only, so a rule's own update never triggers another rule).
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr
from pydantic import BaseModel

from advisor.labels import SEGMENT, choices
from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog
from tools.memory.setup import QLORA_BASES
from tools.precision import WeightFormat, known_weight_formats, weight_format

Pairs = list[tuple[str, Any]]


def literal_choices(model: type[BaseModel], field: str) -> list[str]:
    """The allowed values of a ``Literal`` (or optional ``Literal``) field of a request model."""
    annotation = model.model_fields[field].annotation
    for arg in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(arg) is typing.Literal:
            return list(typing.get_args(arg))
    raise TypeError(f"{model.__name__}.{field} is not a Literal field")


def precision_choices(language: str) -> Pairs:
    formats = [weight_format(name) for name in known_weight_formats()]
    return [(f.name_zh if language == "zh" else f.label, f.id) for f in formats]


def enum_choices(table: dict, values: list) -> Callable[[str], Pairs]:
    """(label, value) pairs for a tool's allowed ``values``, labelled from one of ``advisor.labels``' tables."""
    return lambda language: choices(table, language, values)


def segment_choices(language: str) -> Pairs:
    return [("—", ""), *choices(SEGMENT, language)]


def _format(precision: str | None) -> WeightFormat | None:
    """The weight format typed or picked, or None for text the estimator will reject with its own message."""
    try:
        return weight_format(precision) if precision else None
    except AdvisorError:
        return None


@dataclass(frozen=True)
class MemoryForm:
    method: str
    precision: str
    num_gpus: int
    tp: int
    zero_stage: int
    training: bool  # method and ZeRO only apply to training
    zero_allowed: bool  # ZeRO needs more than one data-parallel GPU


def memory_form(mode: str, method: str, precision: str, num_gpus: float | None, tp: float | None, zero_stage: int | None,
                changed: str) -> MemoryForm:  # fmt: skip
    """The memory form made consistent after the user changed ``changed``; what they just chose wins.

    * QLoRA needs a 4/8-bit base: choosing QLoRA switches the precision to nf4, leaving it switches a
      quantised precision back to bf16; choosing such a base while fine-tuning switches to QLoRA.
    * Full fine-tuning and LoRA train 16-bit weights, so int4/fp8/GGUF become bf16.
    * Tensor parallelism divides the GPU count: raising TP raises the count, lowering the count lowers TP.
    * ZeRO shards over data-parallel GPUs: with one, it is 0 and cannot be changed.
    """
    gpus, split = max(int(num_gpus or 1), 1), max(int(tp or 1), 1)
    if gpus % split:
        if changed == "tp":
            gpus = math.ceil(gpus / split) * split
        else:
            split = math.gcd(gpus, split)
    training = mode == "training"
    fmt = _format(precision)
    if training and fmt is not None:
        base = fmt.id in QLORA_BASES
        if changed == "precision" and base and method in ("full", "lora"):
            method = "qlora"
        elif changed == "precision" and not fmt.quantized and method == "qlora":
            method = "lora"
        elif method == "qlora" and not base:
            precision = "nf4"
        elif method in ("full", "lora") and fmt.quantized:
            precision = "bf16"
    zero_allowed = training and gpus // split > 1
    return MemoryForm(method, precision, gpus, split, int(zero_stage or 0) if zero_allowed else 0, training, zero_allowed)


@dataclass(frozen=True)
class RecommendForm:
    precision: str
    precision_applies: bool  # inference and QLoRA use it; the other training tasks keep 16-bit weights


def recommend_form(task: str, precision: str, changed: str) -> RecommendForm:
    """QLoRA needs a quantised base (nf4 by default); leaving QLoRA puts nf4 back to bf16; other training ignores it."""
    fmt = _format(precision)
    if task == "qlora":
        if fmt is None or fmt.id not in QLORA_BASES:
            precision = "nf4"
        return RecommendForm(precision, True)
    if task == "inference":
        if changed == "task" and precision == "nf4":
            precision = "bf16"
        return RecommendForm(precision, True)
    return RecommendForm("bf16", False)


def training_precision(catalog: Catalog, gpu: str, precision: str) -> str:
    """FP8 only on GPUs with FP8 tensor cores; an unknown GPU is left for the tool to explain."""
    try:
        found = catalog.gpu(gpu) if gpu else None
    except AdvisorError:
        return precision
    return "bf16" if precision == "fp8" and found is not None and found.fp8_tflops is None else precision


# Gradio event handlers: the rules above as component updates, in the order of the events' outputs.


def memory_form_updates(mode, method, precision, num_gpus, tp, zero_stage, changed: str) -> tuple:
    """Outputs: method, precision, num_gpus, tp, zero_stage."""
    form = memory_form(mode, method, precision, num_gpus, tp, zero_stage, changed)
    return (
        gr.update(value=form.method, interactive=form.training),
        gr.update(value=form.precision),
        gr.update(value=form.num_gpus),
        gr.update(value=form.tp),
        gr.update(value=form.zero_stage, interactive=form.zero_allowed),
    )


def recommend_form_updates(task, precision, changed: str) -> dict:
    form = recommend_form(task, precision, changed)
    return gr.update(value=form.precision, interactive=form.precision_applies)


def training_form_updates(catalog: Catalog, gpu, precision) -> dict:
    return gr.update(value=training_precision(catalog, gpu, precision))
