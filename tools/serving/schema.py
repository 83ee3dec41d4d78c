"""Request and result models of the serving-speed estimator (they double as the LLM tool schema).

Numbers are deliberately unconstrained here: ``tools.serving.setup`` range-checks them and answers
with a bilingual ``AdvisorError`` that names the fix.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from tools.common import LineItem

EngineId = Literal["hf", "vllm", "sglang", "trtllm", "lmdeploy", "llamacpp", "ollama", "mlc", "exllamav2", "autoawq"]
Bound = Literal["bandwidth", "compute", "overhead", "interconnect", "capacity"]
TargetLimit = Literal["speed", "ttft", "kv_cache"]


class ThroughputRequest(BaseModel):
    """A model served by an engine on GPUs, and the load it serves."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="Model name/alias ('llama-3.1-8b', 'Qwen2.5-72B'), a size ('7B') or config.json text.")
    params_b: float | None = Field(None, description="Parameter count in billions (overrides the catalog, or sizes a generic model).")
    precision: str | None = Field(
        None, description="Weight format: bf16 (default), fp8, int8, awq-int4, gptq-int4, nf4, GGUF q4_k_m/q8_0..."
    )
    kv_precision: str | None = Field(None, description="KV-cache format: bf16 (default), fp8, int8, int4.")
    gpu: str = Field(description="GPU, e.g. 'H100', 'RTX 4090', 'A100 80G', 'M2 Ultra'.")
    gpu_memory_gb: float | None = Field(
        None, description="Memory of each card as the user states it (a modded 48 GB RTX 4090), GB: it replaces the catalog's figure."
    )
    num_gpus: int | None = Field(None, description="GPUs in total; default tp. Extra GPUs run replicas.")
    tp: int | None = Field(None, description="Tensor-parallel degree; default num_gpus (1 for hf/llamacpp, which split layers).")
    engine: EngineId = Field("vllm", description="Serving engine; when left out, vLLM, or llama.cpp for GGUF weights.")
    batch: int = Field(1, description="Concurrent sequences in total.")
    prompt_tokens: int = Field(1024, description="Input tokens per request.")
    output_tokens: int = Field(256, description="Generated tokens per request.")
    target_ttft_ms: float | None = Field(None, description="Latency target: time to first token, ms.")
    target_tokens_per_s_per_user: float | None = Field(None, description="Latency target: decode speed each user sees, tokens/s.")


class EfficiencyUsed(BaseModel):
    """One efficiency or overhead the estimate used, and where it comes from."""

    key: str
    value: float
    unit: str
    source: str


class ThroughputResult(BaseModel):
    """Speeds for the requested load, the limiting factor, and every step of the arithmetic."""

    efficiency_assumed: bool = Field(False, description="No measurement calibrates this device family for the engine: the speeds rest on an assumed efficiency.")

    model_id: str
    model_name: str
    model_label: Text = Field(description="The model's display name in both languages.")
    gpu: str
    engine: EngineId
    num_gpus: int
    tp: int
    replicas: int = Field(description="Independent copies of the model (num_gpus ÷ tp; 1 for a layer split).")
    layer_split: bool = Field(description="True when the GPUs hold consecutive layers and run one after another.")
    batch: int = Field(description="Concurrent sequences requested.")
    effective_batch: int = Field(description="Sequences actually running at once (limited by KV-cache memory).")
    prompt_tokens: int
    output_tokens: int
    decode_tokens_per_s_per_seq: float = Field(description="Tokens/s each sequence gets between the prefills of new requests (one decode step's rate).")
    tokens_per_s_per_user_streaming: float = Field(
        0.0, description="Output tokens/s each user sees after the first token (1 / TPOT): decode steps plus the stalls from "
        "other requests' prefills; the user's own prefill is the TTFT, not counted here. Speed targets are checked against it.",
    )
    output_tokens_per_s_total: float = Field(description="Generated tokens/s of the whole deployment at the effective batch, every request's prefill work included.")
    prefill_tokens_per_s: float = Field(description="Prompt tokens/s while one prompt is prefilled.")
    ttft_ms: float = Field(description="Time to first token of a request joining the running batch: its own prefill plus the step in flight (no queueing). First-token targets are checked against it.")
    step_ms: float = Field(description="One decode step at the effective batch.")
    request_latency_s: float = Field(description="TTFT plus the time to generate all output tokens.")
    bound: Bound = Field(
        description="What limits the decode step ('interconnect': the tensor-parallel all-reduces), or 'capacity' when the batch does not fit in memory."
    )
    max_batch_fits: int = Field(description="Most sequences of prompt+output tokens whose KV cache fits.")
    weights_format: str = Field("", description="The weight format the estimate used (its id: bf16, fp8, awq-int4…).")
    memory_gb_per_gpu: float = Field(0.0, description="Usable memory of each GPU the KV budget starts from (before the engine's share), GB.")
    weights_gb_per_gpu: float = Field(0.0, description="Weights held by each GPU, GB.")
    kv_free_gb_per_gpu: float = Field(0.0, description="Memory left for the KV cache on each GPU after weights and runtime, GB.")
    kv_gb_per_sequence: float = Field(0.0, description="KV cache of one prompt+output sequence on each GPU, GB.")
    max_concurrency_at_target: int | None = Field(None, description="Most concurrent sequences that still meet the latency targets.")
    limit_at_target: TargetLimit | None = Field(
        None, description="What stops one more sequence at the target: the per-user speed, the first-token time, or the KV cache (memory binds first)."
    )
    compute_peak_tflops: float = Field(
        description="Dense 16-bit peak per GPU the compute times use: the catalog's BF16/FP16 figure, else its FP32 rate (a note says so)."
    )
    lines: list[LineItem] = Field(description="Each quantity with its number-substituted formula.")
    efficiencies: list[EfficiencyUsed]
    precision_basis: Text | None = Field(
        None, description="Why the weights are at this precision when none was asked for: the precision a pasted checkpoint "
        "name states, or the one the model ships in. Answers lead with it.",
    )
    notes: list[Text] = Field(default_factory=list)
    assumptions: list[Text] = Field(default_factory=list)
