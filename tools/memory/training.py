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
from tools.memory.items import CUDA_CONTEXT, MULTI_GPU_WORKSPACES, Part, count, divisor, gb, num
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
        return Trainable(total, 0.0, Text(en="all parameters", zh="全部参数"))
    if s.method in ("lora", "qlora"):
        adapters = lora_params(spec, s.lora_rank, s.lora_targets)
        modules = "、".join(f"{m}_proj" for m in s.lora_targets)  # module names, the same in both languages
        what = Text(en=f"LoRA r={s.lora_rank} on {', '.join(s.lora_targets)}", zh=f"LoRA r={s.lora_rank}，作用于 {modules}")
        return Trainable(adapters, weight_split(spec, s.weights).bytes, what)
    layers = per_layer_params(spec) * s.trainable_layers
    what = Text(en=f"last {s.trainable_layers} layers", zh=f"最后 {s.trainable_layers} 层")
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
        weights_part = Part("weights", "Weights (offloaded to CPU)", "权重（已卸载到 CPU）", 0.0,
                            f"{gb(weights_total)} held in CPU memory; layers are gathered on demand (see buffers)",
                            f"{gb(weights_total)} 存放在 CPU 内存中；各层按需聚合到 GPU（见通信缓冲）")  # fmt: skip
    else:
        frozen, frozen_zh = (f"{gb(t.frozen_bytes)} frozen base + ", f"冻结基座 {gb(t.frozen_bytes)} + ") if t.frozen_bytes else ("", "")
        value = weights_total / shard / weight_share
        rest = f"{split}{divisor('ZeRO-3 dp', weight_share)} = {gb(value)}"
        weights_part = Part(
            "weights", "Weights", "模型权重", value,
            f"({frozen}{count(t.params)} trainable × {num(r.weight)} B){rest}",
            f"({frozen_zh}{count(t.params)} 可训练参数 × {num(r.weight)} 字节){rest}",
        )  # fmt: skip
    grads = gradient_part(s, t, shard)
    if s.offload != "none" or r.paged:
        where, where_zh = (("paged to CUDA unified memory (evicted to CPU when the GPU is full)", "分页存放在 CUDA 统一内存中（显存满时换出到 CPU）")
                           if r.paged else ("kept in CPU memory", "存放在 CPU 内存中"))
        states = f"{count(t.params)} × {num(r.optimizer)}"
        optimizer = Part("optimizer_states", "Optimizer states (off the GPU)", "优化器状态（不占 GPU 显存）", 0.0,
                         f"{states} B = {gb(t.params * r.optimizer)} {where}", f"{states} 字节 = {gb(t.params * r.optimizer)}，{where_zh}")  # fmt: skip
    else:
        share = dp if zero >= 1 else 1
        value = t.params * r.optimizer / shard / share
        states, rest = f"{count(t.params)} × ({num(r.master)} + {num(r.states)})", f"{split}{divisor('ZeRO dp', share)} = {gb(value)}"
        optimizer = Part(
            "optimizer_states", "Optimizer states (master weights + moments)", "优化器状态（主权重 + 动量）", value,
            f"{states} B{rest}", f"{states} 字节{rest}",
        )  # fmt: skip
    return [weights_part, grads, optimizer]


def gradient_part(s: Setup, t: Trainable, shard: int) -> Part:
    r = s.recipe
    if s.optimizer_in_backward:
        largest = _largest_tensor(s) / s.tp
        size = f"{count(largest)} × {num(r.grad)}"
        return Part("gradients", "Gradients (one tensor at a time)", "梯度（逐个张量即时更新）", largest * r.grad,
                    f"optimizer step fused into backward: largest tensor {size} B = {gb(largest * r.grad)}",
                    f"优化器更新融合进反向传播：最大张量 {size} 字节 = {gb(largest * r.grad)}")  # fmt: skip
    if s.offload != "none":
        return Part("gradients", "Gradients (moved to CPU after reduction)", "梯度（归约后移至 CPU）", 0.0,
                    "ZeRO-Offload streams reduced gradients to the CPU optimizer; only buckets stay (see buffers)",
                    "ZeRO-Offload 把归约后的梯度传给 CPU 上的优化器；GPU 上只保留通信桶（见通信缓冲）")  # fmt: skip
    share = s.dp if s.zero_stage >= 2 else 1
    value = t.params * r.grad / shard / share
    rest = f"{divisor('tp×pp', shard)}{divisor('ZeRO-2 dp', share)} = {gb(value)}"
    return Part("gradients", "Gradients", "梯度", value,
                f"{count(t.params)} × {num(r.grad)} B{rest}", f"{count(t.params)} × {num(r.grad)} 字节{rest}")  # fmt: skip


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
        formula = f"checkpointed layer inputs {sbh} × 2 B × {num(layers)} layers"
        formula_zh = f"检查点保存的各层输入 {sbh} × 2 字节 × {num(layers)} 层"
    else:
        per = no_scores if s.recompute == "selective" else full_layer
        saved, working = per * layers * in_flight, 0.0
        eager = not (s.recompute == "selective" or s.flash)
        score, score_zh = (f" + 5·a·s/h·sbh ({spec.heads} heads)", f" + 5·a·s/h·sbh（{spec.heads} 个头）") if eager else ("", "")
        per_layer = f"sbh·{coef:.1f}{divisor('tp', tp)}"
        formula = f"{per_layer}{score} per layer, {sbh} × {num(layers)} layers"
        formula_zh = f"每层 {per_layer}{score_zh}，{sbh} × {num(layers)} 层"
    if in_flight > 1:
        formula += f" × {in_flight} micro-batches in flight (1F1B, first stage)"
        formula_zh += f" × {in_flight} 个同时在途的 micro-batch（1F1B，首级）"
    if s.activation_offload and s.recompute == "full":
        saved, formula, formula_zh = 0.0, "checkpointed inputs offloaded to CPU", "检查点输入已卸载到 CPU"
    formula += f" = {gb(saved)}"
    formula_zh += f" = {gb(saved)}"
    last = first is False or s.pp == 1
    loss = logits_bytes(tokens, spec.vocab, tp, s.chunked_loss, s.compile) if last else 0.0
    return StageActivations(saved, working, loss, formula, formula_zh, "first" if first else "last")


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
        s.notes.append(Text(en=f"Figures are for the {stage.stage} pipeline stage, the busiest GPU.",
                            zh=f"数值对应显存占用最高的流水线{'首' if stage.stage == 'first' else '末'}级 GPU。"))  # fmt: skip
    tokens = s.batch * s.context
    loss_kind, loss_zh = (("chunked loss", "分块计算损失") if s.chunked_loss else ("compiled loss", "编译后的损失计算") if s.compile
                          else ("bf16 logits + fp32 copy + log-softmax + grad", "bf16 logits + fp32 副本 + log-softmax + 梯度"))
    per_logit = logit_bytes(s.chunked_loss, s.compile)
    size, rest = f"{count(tokens)}", f"{divisor('tp', s.tp)} = {gb(stage.logits)}"
    parts = [
        Part("activations", "Activations saved for backward", "反向传播所需的激活值", stage.saved, stage.formula, stage.formula_zh),
        Part("logits", "Logits and cross-entropy", "输出 logits 与交叉熵", stage.logits,
             f"{size} tokens × {s.spec.vocab:,} vocab × {num(per_logit)} B ({loss_kind}){rest}",
             f"{size} 个 token × 词表 {s.spec.vocab:,} × {num(per_logit)} 字节（{loss_zh}）{rest}"),
    ]  # fmt: skip
    if stage.working:
        shape = f"sbh·{layer.coefficient(s.spec.hidden):.1f} = {gb(stage.working)}"
        parts.append(Part("recompute_working_set", "Recomputed layer (during backward)", "反向时重算的单层激活", stage.working,
                          f"one layer's full activations {shape}", f"单层的完整激活 {shape}"))  # fmt: skip
    everything = stage.saved + stage.logits + stage.working + grads
    overlap = everything - dynamic_peak(stage, grads, accumulate)
    if overlap > 0:
        parts.append(Part("peak_overlap", "Not simultaneous (overlap)", "不同时出现的部分（重叠扣除）", -overlap,
                          f"−{gb(overlap)}: gradients fill up as activations are freed: peak = max(activations + loss, gradients)",
                          f"−{gb(overlap)}：激活释放的同时梯度逐步产生：峰值 = max(激活 + 损失, 梯度)"))  # fmt: skip
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
    parts.append(Part("fragmentation", "Allocator fragmentation", "显存碎片", frag,
                      f"{FRAGMENTATION:.0%} of the dynamic peak {gb(dynamic)} (Megatron-LM applies 1.05×) = {gb(frag)}",
                      f"动态峰值 {gb(dynamic)} 的 {FRAGMENTATION:.0%}（Megatron-LM 按 1.05× 计）= {gb(frag)}"))  # fmt: skip
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
        return Part("sharding_buffers", "FSDP gathered units and gradient reduce buffer", "FSDP 聚合单元与梯度归约缓冲", value,
                    f"{units} gathered × {count(unit)} params × {stored:.3g} B + one unit's grads {count(unit_grads)}"
                    f" × {num(s.recipe.weight)} B = {gb(value)}",
                    f"{units} 个聚合单元 × {count(unit)} 参数 × {stored:.3g} 字节 + 一个单元的梯度 {count(unit_grads)}"
                    f" × {num(s.recipe.weight)} 字节 = {gb(value)}")  # fmt: skip
    bucket = min(ZERO_BUCKET_ELEMENTS, t.params / shard) * ACT_BYTES
    value = bucket
    text, text_zh = f"reduce bucket min(5e8, {count(t.params / shard)}) × 2 B", f"归约桶 min(5e8, {count(t.params / shard)}) × 2 字节"
    if s.zero_stage >= 3:
        # Parameters are gathered in the format they are stored in (a QLoRA base stays 4-bit), as for FSDP above.
        stored = (t.frozen_bytes + t.params * s.recipe.weight) / (spec.params_b * 1e9)
        # Only other ranks' shards are gathered, so the weights never exceed an unsharded copy.
        others = spec.params_b * 1e9 / shard * (1 - 1 / s.dp)
        live = min(ZERO3_LIVE_PARAMS, others) * stored
        value += live
        text += f" + live params min(1e9, {count(others)} on other ranks) × {stored:.3g} B"
        text_zh += f" + 活跃参数 min(1e9, 其他进程上的 {count(others)}) × {stored:.3g} 字节"
    return Part("sharding_buffers", "ZeRO communication buffers", "ZeRO 通信缓冲", value,
                f"{text} = {gb(value)} (DeepSpeed defaults)", f"{text_zh} = {gb(value)}（DeepSpeed 默认值）")


def offloaded_bytes(s: Setup) -> float:
    """Host RAM the whole job needs for the states CPU offload moves off the GPUs (0 without offload)."""
    if s.mode != "training" or s.offload == "none":
        return 0.0
    t, r = trainable(s), s.recipe
    return t.params * (r.optimizer + r.grad) + (t.frozen_bytes + t.params * r.weight if s.offload == "optimizer_and_params" else 0)


def training_assumptions(s: Setup, t: Trainable) -> list[Text]:
    r = s.recipe
    out = [
        Text(en=f"Trainable: {t.what.en} ({t.params / 1e9:.3g}B parameters); recipe: {r.label} — {r.source}.",
             zh=f"可训练部分：{t.what.zh}（{t.params / 1e9:.3g}B 参数）；优化器配方：{r.label_zh}。"),
        Text(en="Activations follow Korthikanti et al. 2022 per token (16-bit, no dropout); a gated MLP saves four ffn-wide tensors in eager PyTorch.",
             zh="激活值按 Korthikanti 等（2022）逐 token 计算（16 位、无 dropout）；门控 MLP 在 PyTorch 即时执行模式下保存四个中间层宽度的张量。"),
        Text(en="Fused optimizer step assumed (no foreach temporaries); figures are for the busiest GPU.",
             zh="假设使用融合优化器（没有逐张量更新产生的临时张量）；数值对应最繁忙的那张 GPU。"),
    ]  # fmt: skip
    if s.offload != "none":
        cpu = offloaded_bytes(s)
        out.append(Text(en=f"CPU offload needs about {gb(cpu)} of host RAM across the job for the offloaded states.",
                        zh=f"CPU 卸载需要整个任务约 {gb(cpu)} 的主机内存来存放被卸载的状态。"))  # fmt: skip
    return out
