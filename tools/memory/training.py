"""Training memory per GPU: model states (ZeRO/FSDP/TP/PP aware), activations, logits, overheads.

Peak = weights + optimizer + the dynamic part. Gradients build up during backward while saved
activations are freed, so the dynamic part is max(activations + loss, gradients) as in
llm-analysis (cli99/llm-analysis), unless gradient accumulation keeps gradients alive through
the next forward pass, when both add up.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.bilingual import Text
from tools.memory.activations import LayerActivations, logit_bytes, logits_bytes, training_layer
from tools.memory.constants import (
    FRAGMENTATION,
    ZERO3_LIVE_PARAMS,
    ZERO_BUCKET_ELEMENTS,
)
from tools.memory.items import CUDA_CONTEXT, MULTI_GPU_WORKSPACES, Part, count, divisor, gb, num, text_part, worded_part
from tools.memory.items import MEMORY_TEXT as TEXT
from tools.memory.setup import Setup
from tools.memory.shapes import embedding_params, lora_params, per_layer_params, weight_split

ACT_BYTES = 2


@dataclass(frozen=True)
class Trainable:
    params: float  # parameters the optimizer updates
    frozen_bytes: float  # bytes of weights that stay fixed (base model for LoRA/QLoRA/freeze)
    what: Text


def trainable(s: Setup) -> Trainable:
    spec = s.spec
    total = spec.params_b * 1e9
    if s.method == "full":
        return Trainable(total, 0.0, TEXT.text("training.all_parameters"))
    if s.method in ("lora", "qlora"):
        adapters = lora_params(spec, s.lora_rank, s.lora_targets)
        modules = "、".join(f"{m}_proj" for m in s.lora_targets)  # module names, the same in both languages
        what = TEXT.text("training.lora", rank=s.lora_rank, modules=Text(en=", ".join(s.lora_targets), zh=modules))
        return Trainable(adapters, weight_split(spec, s.weights).bytes, what)
    layers = per_layer_params(spec) * s.trainable_layers
    what = TEXT.text("training.last_layers", layers=s.trainable_layers)
    return Trainable(layers, (total - layers) * s.weights.bytes, what)


def training_parts(s: Setup) -> list[Part]:
    t = trainable(s)
    parts = model_state_parts(s, t)
    states = {p.key: p.bytes for p in parts}
    parts += dynamic_parts(s, states.get("gradients", 0.0))
    parts += overhead_parts(s, t, sum(p.bytes for p in parts if p.key in DYNAMIC_KEYS))
    s.assumptions.extend(training_assumptions(s, t))
    return parts


def model_state_parts(s: Setup, t: Trainable) -> list[Part]:
    r, shard, dp, zero = s.recipe, s.tp * s.pp, s.dp, s.zero_stage
    split = divisor("tp×pp", shard)
    weights_total = t.frozen_bytes + t.params * r.weight
    weight_share = dp if zero >= 3 else 1
    if s.offload == "optimizer_and_params":
        weights_part = text_part("weights", 0.0, "training.weights_offloaded", size=gb(weights_total))
    else:
        frozen = TEXT.text("training.frozen_base", size=gb(t.frozen_bytes)) if t.frozen_bytes else Text(en="", zh="")
        value = weights_total / shard / weight_share
        rest = f"{split}{divisor('ZeRO-3 dp', weight_share)} = {gb(value)}"
        weights_part = text_part("weights", value, "training.weights", frozen=frozen, params=count(t.params), bytes=num(r.weight), rest=rest)
    grads = gradient_part(s, t, shard)
    if s.offload != "none" or r.paged:
        where = TEXT.text("training.paged" if r.paged else "training.on_cpu")
        states = f"{count(t.params)} × {num(r.optimizer)}"
        optimizer = text_part("optimizer_states", 0.0, "training.optimizer_off_gpu", states=states, size=gb(t.params * r.optimizer), where=where)
    else:
        share = dp if zero >= 1 else 1
        value = t.params * r.optimizer / shard / share
        states, rest = f"{count(t.params)} × ({num(r.master)} + {num(r.states)})", f"{split}{divisor('ZeRO dp', share)} = {gb(value)}"
        optimizer = text_part("optimizer_states", value, "training.optimizer", states=states, rest=rest)
    return [weights_part, grads, optimizer]


def gradient_part(s: Setup, t: Trainable, shard: int) -> Part:
    r = s.recipe
    if s.optimizer_in_backward:
        largest = _largest_tensor(s) / s.tp
        size = f"{count(largest)} × {num(r.grad)}"
        return text_part("gradients", largest * r.grad, "training.gradients_in_backward", size=size, total=gb(largest * r.grad))
    if s.offload != "none":
        return text_part("gradients", 0.0, "training.gradients_offloaded")
    share = s.dp if s.zero_stage >= 2 else 1
    value = t.params * r.grad / shard / share
    rest = f"{divisor('tp×pp', shard)}{divisor('ZeRO-2 dp', share)} = {gb(value)}"
    return text_part("gradients", value, "training.gradients", params=count(t.params), bytes=num(r.grad), rest=rest)


def _largest_tensor(s: Setup) -> float:
    spec = s.spec
    if s.method in ("lora", "qlora"):
        return s.lora_rank * (spec.hidden + max(spec.ffn, spec.heads * spec.head_dim))
    candidates = [spec.hidden * spec.ffn * (2 if spec.gated_mlp else 1)]
    if s.method == "full":
        candidates.append(embedding_params(spec) / (1 if spec.tied_embeddings else 2))
    return max(candidates)


DYNAMIC_KEYS = {"activations", "logits", "recompute_working_set", "gradients", "peak_overlap"}


@dataclass(frozen=True)
class StageActivations:
    saved: float
    working: float
    logits: float
    formula: str
    formula_zh: str
    stage: str


def stage_activations(s: Setup, layer: LayerActivations, first: bool) -> StageActivations:
    """Saved activations, recompute working set and loss memory on the first or last pipeline stage."""
    spec, tp, sp = s.spec, s.tp, s.sequence_parallel
    tokens = s.batch * s.context
    in_flight = s.pp if first else 1  # 1F1B: the first stage holds pp micro-batches
    layers = spec.layers / s.pp
    if s.method == "freeze":
        layers = min(layers, s.trainable_layers)  # no gradient flows below the trained layers
    full_layer = layer.per_layer(tokens, s.context, tp, sp)
    no_scores = tokens * layer.per_token(tp, sp)
    coef = layer.coefficient(spec.hidden)
    sbh = f"{s.batch}×{s.context}×{spec.hidden}"
    if s.recompute == "full":
        kept = tokens * ACT_BYTES * spec.hidden / (tp if sp else 1)
        saved, working = kept * layers * in_flight, full_layer
        formula = TEXT.text("training.checkpointed", sbh=sbh, layers=num(layers))
    else:
        per = no_scores if s.recompute == "selective" else full_layer
        saved, working = per * layers * in_flight, 0.0
        eager = not (s.recompute == "selective" or s.flash)
        score = TEXT.text("training.eager_scores", heads=spec.heads) if eager else Text(en="", zh="")
        per_layer = f"sbh·{coef:.1f}{divisor('tp', tp)}"
        formula = TEXT.text("training.per_layer", per_layer=per_layer, score=score, sbh=sbh, layers=num(layers))
    if in_flight > 1:
        formula = _joined(formula, TEXT.text("training.in_flight", count=in_flight))
    if s.activation_offload and s.recompute == "full":
        saved, formula = 0.0, TEXT.text("training.inputs_offloaded")
    formula = _joined(formula, Text(en=f" = {gb(saved)}", zh=f" = {gb(saved)}"))
    last = first is False or s.pp == 1
    loss = logits_bytes(tokens, spec.vocab, tp, s.chunked_loss, s.compile) if last else 0.0
    return StageActivations(saved, working, loss, formula.en, formula.zh, "first" if first else "last")


def _joined(first: Text, second: Text) -> Text:
    return Text(en=first.en + second.en, zh=first.zh + second.zh)


def dynamic_peak(stage: StageActivations, grads: float, accumulate: bool) -> float:
    loss_or_recompute = max(stage.logits, stage.working)
    if accumulate:
        return stage.saved + grads + loss_or_recompute
    return max(stage.saved + loss_or_recompute, grads + stage.working)


def dynamic_parts(s: Setup, grads: float) -> list[Part]:
    layer = training_layer(s.spec, s.flash, compiled=s.compile)
    accumulate = s.grad_accumulation > 1 and not s.optimizer_in_backward
    stages = [stage_activations(s, layer, first=True)]
    if s.pp > 1:
        stages.append(stage_activations(s, layer, first=False))
    stage = max(stages, key=lambda st: dynamic_peak(st, grads, accumulate))
    if s.pp > 1:
        s.notes.append(TEXT.text(f"training.busiest_stage.{stage.stage}"))
    tokens = s.batch * s.context
    loss_kind = TEXT.text("training.chunked_loss" if s.chunked_loss else "training.compiled_loss" if s.compile else "training.eager_loss")
    per_logit = logit_bytes(s.chunked_loss, s.compile)
    size, rest = f"{count(tokens)}", f"{divisor('tp', s.tp)} = {gb(stage.logits)}"
    parts = [
        worded_part("activations", stage.saved, lambda: (TEXT.text("training.activations.label"), Text(en=stage.formula, zh=stage.formula_zh))),
        text_part("logits", stage.logits, "training.logits", tokens=size, vocab=s.spec.vocab, bytes=num(per_logit), loss=loss_kind, rest=rest),
    ]  # fmt: skip
    if stage.working:
        shape = f"sbh·{layer.coefficient(s.spec.hidden):.1f} = {gb(stage.working)}"
        parts.append(text_part("recompute_working_set", stage.working, "training.recompute_working_set", shape=shape))
    everything = stage.saved + stage.logits + stage.working + grads
    overlap = everything - dynamic_peak(stage, grads, accumulate)
    if overlap > 0:
        parts.append(text_part("peak_overlap", -overlap, "training.peak_overlap", overlap=gb(overlap)))
    return parts


def overhead_parts(s: Setup, t: Trainable, dynamic: float) -> list[Part]:
    parts = []
    shard = s.tp * s.pp
    if (s.zero_stage >= 1 and s.dp > 1) or s.offload != "none":
        parts.append(_sharding_buffers(s, t, shard))
    if s.num_gpus > 1:
        parts.append(MULTI_GPU_WORKSPACES)
    parts.append(CUDA_CONTEXT)
    frag = FRAGMENTATION * max(dynamic, 0.0)
    parts.append(text_part("fragmentation", frag, "training.fragmentation", share=FRAGMENTATION, dynamic=gb(dynamic), size=gb(frag)))
    return parts


def _sharding_buffers(s: Setup, t: Trainable, shard: int) -> Part:
    spec = s.spec
    if s.fsdp:
        # FSDP gathers one wrapped unit (a layer, or the embedding/LM head if larger) in its stored
        # format, prefetches the next when parameters are sharded, and reduce-scatters its gradients.
        layer = per_layer_params(spec)
        unit = max(layer, spec.vocab * spec.hidden) / shard
        stored = (t.frozen_bytes + t.params * s.recipe.weight) / (spec.params_b * 1e9)  # bytes per parameter
        units = 2 if s.zero_stage >= 3 else 0
        unit_grads = unit * t.params / (spec.params_b * 1e9)  # the unit's trainable share
        value = units * unit * stored + unit_grads * s.recipe.weight
        return text_part("sharding_buffers", value, "training.fsdp_buffers", units=units, unit=count(unit), stored=stored,
                         unit_grads=count(unit_grads), bytes=num(s.recipe.weight), size=gb(value))  # fmt: skip
    bucket = min(ZERO_BUCKET_ELEMENTS, t.params / shard) * ACT_BYTES
    value = bucket
    text = TEXT.text("training.reduce_bucket", params=count(t.params / shard))
    if s.zero_stage >= 3:
        # Parameters are gathered in the format they are stored in (a QLoRA base stays 4-bit), as for FSDP above.
        stored = (t.frozen_bytes + t.params * s.recipe.weight) / (spec.params_b * 1e9)
        # Only other ranks' shards are gathered, so the weights never exceed an unsharded copy.
        others = spec.params_b * 1e9 / shard * (1 - 1 / s.dp)
        live = min(ZERO3_LIVE_PARAMS, others) * stored
        value += live
        text = _joined(text, TEXT.text("training.live_params", others=count(others), stored=stored))
    return text_part("sharding_buffers", value, "training.zero_buffers", text=text, size=gb(value))


def offloaded_bytes(s: Setup) -> float:
    """Host RAM the whole job needs for the states CPU offload moves off the GPUs (0 without offload)."""
    if s.mode != "training" or s.offload == "none":
        return 0.0
    t, r = trainable(s), s.recipe
    return t.params * (r.optimizer + r.grad) + (t.frozen_bytes + t.params * r.weight if s.offload == "optimizer_and_params" else 0)


def training_assumptions(s: Setup, t: Trainable) -> list[Text]:
    r = s.recipe
    out = [
        # the English names the recipe's source too; the Chinese keeps to its name
        TEXT.text("training.assumptions.trainable", what=t.what, params=t.params / 1e9, recipe=Text(en=f"{r.label} — {r.source}", zh=r.label_zh)),
        TEXT.text("training.assumptions.activations"),
        TEXT.text("training.assumptions.fused_optimizer"),
    ]  # fmt: skip
    if s.offload != "none":
        cpu = offloaded_bytes(s)
        out.append(TEXT.text("training.assumptions.cpu_offload", size=gb(cpu)))
    return out
