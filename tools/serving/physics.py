"""Time of one decode step and of one prefill, and how many sequences the KV cache holds.

Decode step (one replica, b sequences, all on one GPU's clock):
    step = host overhead + max(host launches that overlap the GPU, device time)
    device = max(weights ÷ (e_w·BW), GEMM FLOPs ÷ (MFU·peak)) + KV read ÷ (e_kv·BW) + all-reduces
Weight streaming and GEMMs run in the same kernels, so the slower one counts; the attention kernel
that reads the KV cache runs separately and adds. Tensor parallelism divides bytes and FLOPs by tp
and pays two all-reduces per layer; a layer split (hf device_map, llama.cpp) runs the GPUs one after
another, so it adds memory but not bandwidth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from knowledge.serving import AllReduceLatency
from tools.memory.activations import prefill_bytes_per_token
from tools.memory.constants import CAPACITY_UNIT_BYTES, CUDA_CONTEXT_BYTES, CUDA_GRAPH_BYTES, NON_TORCH_BYTES
from tools.serving.setup import ServingSetup
from tools.serving.workload import Workload, attention_flops, kv_bytes_per_sequence

ACT_BYTES = 2  # 16-bit activations cross the interconnect
ALLREDUCES_PER_LAYER = 2  # after attention and after the MLP
GRAPH_ENGINES = {"vllm", "sglang"}  # runtimes whose fixed memory is NCCL/cuBLAS workspaces + CUDA graphs


@dataclass(frozen=True)
class Rates:
    """What one GPU realises for this engine, family and format."""

    bandwidth: float  # B/s peak
    e_weights: float
    e_kv: float
    flops: float  # realised GEMM FLOP/s (peak × MFU × FP8 gain)
    peak_flops: float  # FLOP/s before MFU
    fp8_gain: float
    link_latency: float  # s per all-reduce (0 without tensor parallelism)
    link_bandwidth: float  # B/s per direction
    link_name: str
    link_row: AllReduceLatency | None = None  # the data row the all-reduce latency comes from (None without tensor parallelism)


@dataclass(frozen=True)
class Step:
    host: float  # serial: scheduler/sampler + MoE expert loop
    launches: float  # host launches that overlap device work
    weights: float
    compute: float
    kv: float
    comm: float
    weight_bytes: float
    kv_bytes: float
    flops: float

    @property
    def device(self) -> float:
        return max(self.weights, self.compute) + self.kv + self.comm

    @property
    def total(self) -> float:
        return self.host + max(self.launches, self.device)

    def shares(self) -> dict[str, float]:
        """Seconds attributable to each possible bottleneck."""
        gemm_bandwidth = self.weights if self.weights >= self.compute else 0.0
        return {
            "bandwidth": gemm_bandwidth + self.kv,
            "compute": self.compute if self.compute > self.weights else 0.0,
            "overhead": self.host + max(self.launches - self.device, 0.0),
            "interconnect": self.comm,  # tensor-parallel all-reduces: the binding cost of TP over PCIe between consumer cards
        }


@dataclass(frozen=True)
class Prefill:
    total: float  # one prompt on an idle replica
    compute: float
    weights: float
    comm: float
    fixed: float  # serial overheads, shared when prompts are batched
    flops: float
    chunks: int

    def amortised(self, batch: float) -> float:
        """Prefill seconds per prompt when ``batch`` prompts share steps (batch 1: the whole prefill)."""
        return self.fixed / batch + max(self.compute, self.weights / batch) + self.comm


@dataclass(frozen=True)
class Capacity:
    budget: float  # bytes per GPU the engine may use
    weights: float  # per GPU
    overhead: float  # per GPU
    free: float  # per GPU for the KV cache
    per_sequence: float  # KV bytes of one prompt+output sequence per GPU
    max_batch: int  # per replica


def rates(s: ServingSetup) -> Rates:
    eff, gpu = s.efficiency, s.gpu
    peak = s.peak_tflops * 1e12
    gain = 1.0
    if s.fp8_compute and gpu.fp8_tflops and gpu.bf16_tflops:
        gain = min(s.data.fp8_compute_gain, gpu.fp8_tflops / gpu.bf16_tflops)
    row, link, name = _link(s)
    kernel = s.data.format_kernel(s.engine.runtime, s.family.id, s.weights.id)
    e_weights = eff.bandwidth * (kernel.bandwidth_factor if kernel else 1.0)
    return Rates(gpu.bandwidth_gbs * 1e9, e_weights, eff.kv_bandwidth or eff.bandwidth, peak * eff.mfu * gain, peak, gain,
                 row.latency_us * 1e-6 if row else 0.0, link, name, row)  # fmt: skip


def _link(s: ServingSetup) -> tuple[AllReduceLatency | None, float, str]:
    """The all-reduce latency row of the link the GPUs talk over (None without tensor parallelism), its bandwidth per
    direction and its name."""
    if s.tp == 1:
        return None, 1.0, "none"
    net, gpu, engine = s.data.interconnect, s.gpu, s.engine.runtime
    bridged = "bridge" in gpu.interconnect.lower()
    if gpu.nvlink_gbs and (not bridged or s.tp <= net.bridge_max_gpus):
        # the catalog keeps a GPU-to-GPU fabric's bandwidth in nvlink_gbs; on AMD boards that fabric is Infinity Fabric
        link, label = ("infinity_fabric", "Infinity Fabric") if gpu.vendor == "AMD" else ("nvlink", "NVLink-class")
        return net.latency(link, engine), gpu.nvlink_gbs / 2 * 1e9, f"{label} {gpu.nvlink_gbs / 2:g} GB/s per direction"
    generation = gpu.pcie_gen or 4
    per_direction = net.pcie_gbs_per_direction.get(generation, 32.0)
    return net.latency("pcie", engine), per_direction * 1e9, f"PCIe Gen{generation} {per_direction:g} GB/s per direction"


def allreduce_seconds(s: ServingSetup, r: Rates, tokens: float, passes: int = 1) -> float:
    """Two ring all-reduces per layer of tokens × hidden 16-bit activations."""
    if s.tp == 1:
        return 0.0
    count = ALLREDUCES_PER_LAYER * s.spec.layers
    message = tokens * s.spec.hidden * ACT_BYTES * 2 * (s.tp - 1) / s.tp
    return count * (passes * r.link_latency + message / r.link_bandwidth)


def host_seconds(s: ServingSetup, w: Workload) -> tuple[float, float]:
    """(serial host time, overlappable launch time) of one forward pass."""
    engine = s.engine
    serial = engine.step_overhead_ms / 1e3 + engine.moe_expert_loop_us * 1e-6 * w.moe_layers * w.experts
    return serial, engine.launch_ms_per_layer / 1e3 * s.spec.layers


def streaming_seconds(s: ServingSetup, r: Rates, dense: float, experts: float) -> float:
    """Weight bytes at the engine's streaming rate; routed experts at its MoE share of it."""
    bandwidth = r.bandwidth * r.e_weights
    return dense / bandwidth + experts / (bandwidth * s.engine.moe_bandwidth_factor)


def decode_step(s: ServingSetup, w: Workload, r: Rates, batch: float) -> Step:
    """One decode step for ``batch`` sequences at the average context (prompt + half the output)."""
    context = s.prompt + s.output / 2
    tp = s.tp
    dense, experts = w.dense_read_bytes / tp, w.expert_read_bytes(batch) / tp
    weights = streaming_seconds(s, r, dense, experts)
    flops_dense, flops_expert = w.dense_flops_per_token * batch / tp, w.expert_flops_per_token * batch / tp
    compute = flops_dense / r.flops + flops_expert / (r.flops * s.engine.moe_mfu_factor)
    kv_bytes = batch * kv_bytes_per_sequence(s.spec, s.kv, tp, context)
    kv = kv_bytes / (r.bandwidth * r.e_kv)
    serial, launches = host_seconds(s, w)
    return Step(serial, launches, weights, compute, kv, allreduce_seconds(s, r, batch), dense + experts, kv_bytes,
                flops_dense + flops_expert)  # fmt: skip


def prefill(s: ServingSetup, w: Workload, r: Rates) -> Prefill:
    """One prompt of ``s.prompt`` tokens, in the engine's chunks."""
    tokens, tp = s.prompt, s.tp
    chunk = s.engine.prefill_chunk or tokens
    chunks = max(1, math.ceil(tokens / chunk))
    per_chunk = min(chunk, tokens)
    flops_linear = w.dense_flops_per_token * tokens + attention_flops(s.spec, tokens)
    compute = (flops_linear + w.expert_flops_per_token * tokens / s.engine.moe_mfu_factor) / (tp * r.flops)
    weights = chunks * streaming_seconds(s, r, w.dense_read_bytes / tp, w.expert_read_bytes(per_chunk) / tp)
    serial, launches = host_seconds(s, w)
    comm_latency = ALLREDUCES_PER_LAYER * s.spec.layers * chunks * r.link_latency if tp > 1 else 0.0
    comm = allreduce_seconds(s, r, tokens, passes=0)
    fixed = chunks * serial + comm_latency
    device = max(compute, weights) + comm + comm_latency
    total = chunks * serial + max(chunks * launches, device)
    return Prefill(total, compute, weights, comm, fixed, (flops_linear + w.expert_flops_per_token * tokens) / tp, chunks)


def capacity(s: ServingSetup, w: Workload) -> Capacity:
    """KV-cache room per GPU after weights and runtime memory, and the sequences it holds."""
    engine, spec = s.engine, s.spec
    shards = s.tp * s.chain
    raw = s.gpu.memory_gb * CAPACITY_UNIT_BYTES * s.family.memory_fraction
    weights = w.stored_bytes / shards
    batch_prompt = s.prompt * s.batch  # hf prefills the whole batch in one pass; the others chunk it
    activations = min(engine.prefill_chunk or batch_prompt, batch_prompt) * prefill_bytes_per_token(spec, s.tp)
    fixed = NON_TORCH_BYTES + CUDA_GRAPH_BYTES if engine.id in GRAPH_ENGINES else CUDA_CONTEXT_BYTES
    overhead = fixed + activations
    if engine.memory_basis == "total":
        budget = raw * engine.memory_fraction
        free = budget - weights - overhead
    else:
        budget = raw
        free = engine.memory_fraction * (raw - weights - overhead)
    per_sequence = kv_bytes_per_sequence(spec, s.kv, s.tp, s.prompt + s.output) / s.chain
    max_batch = int(max(free, 0.0) // per_sequence) if per_sequence > 0 else 0
    return Capacity(budget, weights, overhead, free, per_sequence, max_batch)
