"""Which models a given set of GPUs can serve: the largest catalog model that fits at each weight precision.

"I have two 3090s, what can I run?" is answered the way a consultant would: for each precision a serving
engine offers on that hardware (16-bit, 8-bit, 4-bit), the largest catalog model whose weights, KV cache
for one conversation of ``context`` tokens and runtime fit with the engine's headroom, and the decode speed
one user would see. Each figure comes from the memory estimator and the serving-speed estimator.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from knowledge.models import ModelSpec
from knowledge.serving import ServingData
from tools.checks import INPUT_NAMES, check_range
from tools.memory.estimator import estimate_memory
from tools.memory.items import MEMORY_TEXT
from tools.memory.schema import MemoryRequest
from tools.precision import weight_format
from tools.serving.estimator import estimate_throughput
from tools.serving.schema import ThroughputRequest

HEADROOM_PCT = 5.0  # what engines leave for fragments and CUDA graphs when run close to the limit (vLLM 0.9-0.95 utilisation)


class RunnableRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str | None = Field(None, description="The GPU the user has, e.g. 'RTX 3090', 'A100 40G', 'M2 Ultra'.")
    gpu_memory_gb: float | None = Field(None, description="Memory of one GPU, GB: the card's size when none is named, or the size "
                                        "the user states for a named one (\"an M4 Max with 64GB\"), which wins over the catalog's.")
    num_gpus: int = Field(1, description="How many of those GPUs serve together (tensor parallelism across them).")
    context: int = Field(8192, description="Tokens per conversation the KV cache must hold (prompt + answer).")


class RunnablePick(BaseModel):
    precision: str = Field(description="Weight format, e.g. 'bf16', 'fp8', 'int8', 'awq-int4', 'q4_k_m'.")
    model_id: str
    model_label: Text
    params_b: float
    per_gpu_gb: float = Field(description="Memory per GPU at that precision with one conversation of `context` tokens.")
    headroom_pct: float
    decode_tokens_per_s: float | None = Field(
        None, description="Speed one user sees while the answer is generated; None without a named GPU."
    )
    engine: str | None = None
    tight: bool = Field(False, description="Fits with little to spare: a shorter context or an 8-bit KV cache buys room for more users.")


class RunnableResult(BaseModel):
    gpu_label: Text = Field(description="The hardware in words, e.g. '2× NVIDIA GeForce RTX 3090'.")
    num_gpus: int
    tp: int = Field(description="GPUs one copy of the model is split over (a power of two that divides attention heads).")
    memory_gb: float = Field(description="Memory of all the GPUs together, GB as sold.")
    context: int
    picks: list[RunnablePick] = Field(description="The largest model per precision, widest format first.")


def _formats(gpu: GPU | None) -> tuple[list[str], str]:
    """The 16-, 8- and 4-bit formats a consultant would try on this hardware, and the engine that serves them."""
    if gpu is not None and gpu.vendor == "Apple":
        return ["bf16", "q8_0", "q4_k_m"], "llamacpp"
    eight_bit = "fp8" if gpu is None or gpu.fp8_tflops else "int8"  # no FP8 tensor cores before Ada/Hopper
    return ["bf16", eight_bit, "awq-int4"], "vllm"


def _tier(fmt: str) -> int:
    """16, 8 or 4: the width class a format belongs to (MXFP4's 4.25 bits are 4-bit, FP8 is 8-bit)."""
    bits = weight_format(fmt).bits
    return 16 if bits > 12 else 8 if bits > 6 else 4


def _served(catalog: Catalog) -> list[ModelSpec]:
    return [m for m in catalog.models if m.current]


def runnable_models(request: RunnableRequest, catalog: Catalog, serving: ServingData) -> RunnableResult:
    check_range(request.num_gpus, *INPUT_NAMES.pair("gpus"), minimum=1, maximum=64, code="invalid_gpu_count")
    check_range(request.context, *INPUT_NAMES.pair("context_window"), minimum=256, maximum=1_048_576, code="invalid_context")
    if request.gpu_memory_gb is not None:
        check_range(request.gpu_memory_gb, *INPUT_NAMES.pair("gpu_memory_gb"), minimum=1, maximum=4096, code="invalid_memory")
    if not request.gpu and request.gpu_memory_gb is None:  # an empty name names no card
        raise AdvisorError("missing_gpu", **MEMORY_TEXT.text("errors.missing_own_gpu").model_dump())
    gpu = catalog.gpu(request.gpu) if request.gpu else None
    # tensor parallelism must divide the attention heads: 3 or 6 cards split a model over 2 or 4, the rest run replicas
    tp = 1 << (request.num_gpus.bit_length() - 1)
    formats, engine = _formats(gpu)
    picks: list[RunnablePick] = []
    for fmt in formats:
        fitting = []
        for model in _served(catalog):
            # a checkpoint that ships quantised (DeepSeek's FP8, gpt-oss's MXFP4) is served as shipped, in its own width class
            used = model.shipped_precision or fmt
            if _tier(used) != _tier(fmt):
                continue
            estimate = estimate_memory(MemoryRequest(
                model=model.id, precision=used, context=request.context, batch=1, num_gpus=tp, tp=tp, gpu=gpu.id if gpu else None, gpu_memory_gb=request.gpu_memory_gb,  # a stated size wins over the row's
                engine="hf",  # weights + one conversation's KV + runtime; the engine's pre-allocation is the headroom below
            ), catalog)  # fmt: skip
            if estimate.verdict in ("fits", "tight") and (estimate.headroom_pct or 0) >= HEADROOM_PCT:
                fitting.append((model, used, estimate))
        if not fitting:
            continue
        model, used, estimate = max(fitting, key=lambda f: f[0].params_b)
        if any(p.model_id == model.id for p in picks):
            continue  # a narrower format that buys no larger model is not a choice worth a row
        speed = None
        if gpu is not None:
            try:
                speed = estimate_throughput(ThroughputRequest(
                    model=model.id, precision=used, gpu=gpu.id, num_gpus=tp, engine=engine, batch=1,
                ), catalog, serving).decode_tokens_per_s_per_seq  # fmt: skip
            except AdvisorError:
                speed = None  # the engine has no kernel for this format on this card: the fit still stands
        picks.append(RunnablePick(
            precision=used, model_id=model.id, model_label=model.label, params_b=model.params_b,
            per_gpu_gb=round(estimate.total_per_gpu_gb, 1), headroom_pct=round(estimate.headroom_pct or 0, 1),
            decode_tokens_per_s=round(speed, 1) if speed else None, engine=engine if speed else None,
            tight=estimate.verdict == "tight",
        ))  # fmt: skip
    if gpu is not None and request.gpu_memory_gb is not None and request.gpu_memory_gb != gpu.memory_gb:
        # "an M4 Max with 64GB": the catalog row is one memory option of the chip; the user's size is the one sized
        size = f"{request.gpu_memory_gb:g} GB"
        name, memory = MEMORY_TEXT.text("runnable.stated_card", name=gpu.name, size=size), request.gpu_memory_gb * request.num_gpus
    elif gpu is not None:
        name, memory = Text(en=gpu.name, zh=gpu.name), gpu.memory_gb * request.num_gpus
    else:
        size = f"{request.gpu_memory_gb:g} GB"
        name, memory = MEMORY_TEXT.text("runnable.sized_card", size=size), request.gpu_memory_gb * request.num_gpus
    many = request.num_gpus > 1
    label = MEMORY_TEXT.text("runnable.cards", count=request.num_gpus, name=name) if many else name
    return RunnableResult(gpu_label=label, num_gpus=request.num_gpus, tp=tp, memory_gb=memory, context=request.context, picks=picks)
