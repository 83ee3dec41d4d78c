"""Request and result models of the GPU-memory estimator (they double as the LLM tool schema).

Numeric fields are deliberately unconstrained here: ``tools.memory.setup`` checks them and
answers out-of-range values with a bilingual ``AdvisorError`` instead of a validation trace.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.common import LineItem
from tools.memory.constants import VLLM_DEFAULT_UTILIZATION

FIELDS = shipped("tool_field_descriptions.yaml")

Mode = Literal["inference", "training"]
Method = Literal["full", "lora", "qlora", "freeze"]
Optimizer = Literal[
    "adamw", "adamw_fp16_grads", "adamw_bf16", "adamw_fp32", "adamw_8bit", "adamw_8bit_paged", "sgd", "sgd_momentum"
]
Engine = Literal["hf", "hf_legacy", "vllm"]
Recompute = Literal["none", "selective", "full"]
Offload = Literal["none", "optimizer", "optimizer_and_params"]
FsdpStrategy = Literal["FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "NO_SHARD"]
Verdict = Literal["fits", "tight", "does_not_fit"]


class MemoryRequest(BaseModel):
    """What to size: a model, how it runs (inference or training) and on what."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(
        None,
        description=FIELDS.entry("memory.model"),
    )
    params_b: float | None = Field(
        None, description="Parameter count in billions. Overrides the catalog figure, or sizes a generic model when `model` is empty."
    )
    mode: Mode = Field("inference", description="'inference' (serving) or 'training' (pre-training / fine-tuning).")
    precision: str | None = Field(
        None,
        description="Weight storage format. Inference default bf16; also fp32, fp16, fp8, fp8-mlp, int8, int4, "
        "gptq-int4, gptq-int8, awq-int4, bnb-int8, bnb-4bit, nf4, GGUF q8_0/q6_k/q5_k_m/q5_0/q4_k_m/q4_0/q3_k_m/q2_k, Unsloth dynamic ud-iq1_s (1.58-bit)/ud-iq1_m/ud-iq2_xxs/ud-q2_k_xl. "
        "Training: the base weights (bf16 default; nf4 or int8 for QLoRA).",
    )
    group_size: int = Field(128, description="Quantisation group size for GPTQ/AWQ formats (scale overhead).")
    kv_precision: str | None = Field(
        None, description="KV-cache format: bf16/fp16 (default), fp8, int8, int4, fp32."
    )
    batch: int = Field(
        1, description="Inference: concurrent sequences. Training: micro-batch size per data-parallel rank."
    )
    context: int = Field(4096, description="Tokens per sequence: prompt + generated (inference) or training sequence length.")
    prompt_tokens: int | None = Field(
        None, description="Inference prompt length processed by prefill; default = context (worst case: the whole context is prompt)."
    )
    prefill_chunk: int | None = Field(
        None,
        description="Max prompt tokens per prefill step (chunked prefill). Default: whole prompt for hf; vLLM's "
        "max_num_batched_tokens default (8192 on ≥70 GiB GPUs other than A100, else 2048).",
    )
    engine: Engine = Field(
        "hf",
        description="Inference engine: 'hf' (transformers ≥4.45: last-token logits, in-place KV cache), "
        "'hf_legacy' (older transformers / remote-code models: KV tuple rebuilt every step, fp32 logits for the whole prompt), "
        "'vllm' (pre-allocates gpu_memory_utilization of the GPU; reports KV capacity).",
    )
    gpu_memory_utilization: float = Field(
        VLLM_DEFAULT_UTILIZATION, description="vLLM: fraction of GPU memory the engine may use."
    )
    flash_attention: bool = Field(True, description="FlashAttention/SDPA: no materialised attention-score matrix.")
    method: Method = Field("full", description="Training method: full fine-tune/pre-train, LoRA, QLoRA or freeze (train last layers only).")
    optimizer: Optimizer = Field(
        "adamw",
        description="adamw: mixed precision with fp32 master + fp32 grads (18 B/param, HF/DeepSpeed/Megatron); "
        "adamw_fp16_grads: ZeRO-paper accounting (16); adamw_bf16: pure bf16 (8); adamw_fp32 (16); "
        "adamw_8bit (8: 2 B of states + step buffers); adamw_8bit_paged (states in unified memory, 4 on the GPU); sgd (8); sgd_momentum (12).",
    )
    lora_rank: int = Field(16, description="LoRA/QLoRA rank r.")
    lora_targets: list[str] = Field(
        default_factory=lambda: ["all"],
        description="LoRA target modules: 'all', 'attention', 'mlp' or names like q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj.",
    )
    trainable_layers: int = Field(2, description="Freeze method: how many final layers are trained (LLaMA-Factory default 2).")
    zero_stage: int = Field(0, description="DeepSpeed ZeRO stage 0-3 (1: optimizer sharded, 2: + gradients, 3: + weights).")
    fsdp: FsdpStrategy | None = Field(None, description="PyTorch FSDP strategy; FULL_SHARD≈ZeRO-3, SHARD_GRAD_OP≈ZeRO-2.")
    offload: Offload = Field("none", description="CPU offload (ZeRO-Offload/FSDP): optimizer states, or optimizer and weights (ZeRO-3).")
    recompute: Recompute = Field(
        "full", description="Activation recomputation: 'full' (gradient checkpointing, the usual fine-tuning default), 'selective' or 'none'."
    )
    sequence_parallel: bool = Field(False, description="Megatron sequence parallelism (splits norm/dropout activations across TP ranks).")
    tp: int = Field(1, description="Tensor-parallel degree.")
    pp: int = Field(1, description="Pipeline-parallel degree.")
    num_gpus: int | None = Field(
        None, description="Total GPUs. Default tp × pp; data parallelism uses num_gpus / (tp × pp)."
    )
    grad_accumulation: int = Field(1, description="Gradient-accumulation steps (>1 keeps gradients alive during the forward pass).")
    torch_compile: bool = Field(
        False, description="torch.compile: pointwise ops (MLP activation, loss upcast) are recomputed instead of stored."
    )
    chunked_loss: bool = Field(False, description="Chunked/fused cross-entropy (torchtune, Liger, Unsloth): no full fp32 logits.")
    optimizer_in_backward: bool = Field(False, description="Optimizer step fused into backward (torchtune optimizer_in_bwd): gradients freed at once.")
    activation_offload: bool = Field(False, description="Checkpointed activations offloaded to CPU (torchtune enable_activation_offloading).")
    gpu: str | None = Field(None, description=FIELDS.entry("memory.gpu"))
    gpu_memory_gb: float | None = Field(
        None, ge=1, le=4096, description="Memory of one card as sold (10 for a 10 GB card): a card not in the catalog when no gpu is given; "
        "with a gpu, the memory the user states for it (a modded 48 GB RTX 4090), which replaces the catalog's figure."
    )


RouteKey = Literal["same_card", "fp8", "int4", "fp8_card", "fp8_kv", "lora", "qlora", "offload", "larger_card", "smaller_model"]


class Route(BaseModel):
    """One way to run the job: on which card, how many of it, and the memory per GPU that follows."""

    key: RouteKey
    label: Text
    gpu_id: str
    gpu: str = Field(description="The card's name.")
    count: int | None = Field(description="Fewest GPUs of `gpu` that hold it (None: no count up to 512 does).")
    tp: int = 1
    pp: int = 1
    per_gpu_gb: float | None = Field(None, description="Memory per GPU at `count` (or at the user's own count when one was given).")
    fits_your_count: bool | None = Field(None, description="With a count given: whether this route fits on it.")
    host_ram_gb: float | None = Field(None, description="CPU offload: host RAM for the offloaded states, GB.")
    params_b: float | None = Field(None, description="Smaller model: the largest parameter count that fits, billions.")
    micro_batch: int | None = Field(None, description="Training: the micro-batch this route was sized at when it is not the asked one (1).")
    grad_accumulation: int | None = Field(None, description="Training at `micro_batch`: the gradient-accumulation steps that keep the effective batch.")
    precision: str | None = Field(None, description="The weight format this route was sized in (None: the request's).")
    kv_precision: str | None = Field(None, description="The KV-cache format this route was sized in (None: the request's).")


class FitPlan(BaseModel):
    """What fits when the request as asked does not."""

    your_count: int = Field(description="GPUs the request was checked on (1, or the count the user has).")
    same_card: Route = Field(description="The request as asked, on the fewest of the same card.")
    routes: list[Route] = Field(description="Cheaper routes, those that fit first.")


class MemoryEstimate(BaseModel):
    """Itemised memory per GPU, totals, and (with a GPU) the verdict. All figures in GB = 10^9 bytes."""

    model_id: str
    model_name: str
    model_label: Text = Field(description="The model's display name in both languages (generic stand-ins differ).")
    params_b: float
    mode: Mode
    unit: str = "GB (10^9 bytes)"
    num_gpus: int
    tp: int
    pp: int
    dp: int
    items: list[LineItem] = Field(description="Memory per GPU, one line per component, each with its formula.")
    total_per_gpu_gb: float = Field(description="Peak memory of the busiest GPU.")
    total_all_gpus_gb: float = Field(description="Model-wide total: the busiest GPU × the GPU count (an upper bound).")
    weights_all_gpus_gb: float = Field(0.0, description="Serving: the model's weights summed over the GPUs that hold them (per-GPU weights × TP × PP).")
    torch_allocated_peak_gb: float = Field(
        description="What `torch.cuda.max_memory_allocated()` would report: the total without the CUDA context, non-torch "
        "workspaces, CUDA graphs and allocator fragmentation."
    )
    nvidia_smi_total_gb: float = Field(
        description="What nvidia-smi would show for the process: the allocator peak plus the runtime outside it. "
        "This is the figure compared with the card's capacity."
    )
    outside_allocator_gb: float = Field(
        0.0, description="The runtime's share of the nvidia-smi total, outside PyTorch's allocator: CUDA context and kernels, "
        "non-torch workspaces, CUDA graphs, fragmentation (nvidia_smi_total_gb − torch_allocated_peak_gb).",
    )
    compared_with_card: Literal["nvidia_smi_total"] = Field(
        "nvidia_smi_total", description="The total the verdict and headroom compare with the card's capacity."
    )
    scopes_note: Text = Field(description="Which of the two totals is compared with the card, and why they differ.")
    gpu: str | None = None
    gpu_capacity_gb: float | None = None
    capacity_all_gpus_gb: float | None = Field(None, description="The capacity per GPU × the GPU count: what the whole job is set against.")
    capacity: LineItem | None = Field(None, description="The memory available per GPU (vLLM: its utilisation budget).")
    gpu_share_note: Text | None = Field(
        None, description="Apple: the share of unified memory the GPU may use by default, which the verdict compares with; "
        "answers show it beside the verdict (it is also the first note).",
    )
    verdict: Verdict | None = None
    headroom_pct: float | None = Field(None, description="Free share of capacity at peak; negative when it does not fit.")
    main_lever: Text | None = Field(None, description="The change most likely to make it fit (or give headroom).")
    kv_cache_tokens: int | None = Field(None, description="vLLM: KV-cache tokens that fit per GPU after non-KV memory.")
    max_concurrency: float | None = Field(None, description="vLLM: sequences of `context` tokens that fit at once.")
    precision_basis: Text | None = Field(
        None, description="Why the weights are at this precision when none was asked for: the precision a pasted checkpoint "
        "name states, or the one the model ships in. Answers lead with it.",
    )
    fit_plan: FitPlan | None = Field(None, description="When it does not fit: the fewest of the same card that hold it, and the cheaper routes that fit.")
    kv_precision: str | None = Field(None, description="Serving: the KV-cache format the estimate used.")
    kv_cache_fp8_gb: float | None = Field(None, description="Serving with a 16-bit KV cache: the same KV cache per GPU stored in FP8.")
    weights_precision: str = Field("bf16", description="The weight format the estimate used (the stated one, the shipped one, or bf16).")
    host_ram_gb: float | None = Field(None, description="Training with CPU offload: host RAM the whole job needs for the offloaded states, GB.")
    notes: list[Text] = Field(default_factory=list)
    assumptions: list[Text] = Field(default_factory=list)
    unit_note: Text = Field(description="One sentence on units (GB = 10^9 bytes, cards sold in GiB, nvidia-smi in MiB), to show once.")


class MemoryLimitsRequest(MemoryRequest):
    """Same settings as an estimate; the answer is the largest batch and context that fit the GPU."""

    gpu: str = Field(description="GPU to fit, e.g. 'H100', 'RTX 4090'.")


class MemoryLimits(BaseModel):
    """Largest batch at the requested context and largest context at the requested batch."""

    model_id: str
    gpu: str
    num_gpus: int
    capacity_gb: float
    context: int
    batch: int
    max_batch: int = Field(description="Largest batch that fits at `context` (0: not even one sequence).")
    max_context: int = Field(description="Largest context that fits at `batch` (0: does not fit at any length).")
    fits_as_requested: bool
    limit_reason: Text | None = Field(None, description="What stops it growing further.")
    notes: list[Text] = Field(default_factory=list)
