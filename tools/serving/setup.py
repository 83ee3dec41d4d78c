"""Check a ``ThroughputRequest`` and resolve it against the catalogs and the engine data.

Every refusal is a bilingual ``AdvisorError`` that says what to change: an engine with no backend
for the GPU, a weight or KV format the engine cannot load, FP8 on a GPU without FP8 tensor cores,
tensor parallelism that does not divide the attention heads, or a layer-split engine asked for TP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from knowledge.models import ModelSpec
from knowledge.serving import DeviceFamily, Efficiency, Engine, ServingData
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.memory.setup import stated_memory
from tools.memory.constants import MAX_BATCH, MAX_CONTEXT_TOKENS, MAX_GPUS
from tools.models.generic import SOURCE_ZH as GENERIC_SOURCE_ZH
from tools.models.resolve import checkpoint_precision_note, resolve_sized_model
from tools.precision import KVFormat, WeightFormat, is_gguf, kv_format, weight_format
from tools.serving.schema import ThroughputRequest

TEXT = shipped("serving_text.yaml")

MAX_TARGET = 1e9
FP8_FORMATS = {"fp8", "fp8-mlp"}
GGUF_OF = {"int4": "q4_k_m", "int8": "q8_0"}  # "int4" said of a Mac: the GGUF file people download at that width
USUAL_ENGINES = ("vllm", "llamacpp", "sglang", "lmdeploy", "trtllm", "hf")  # the default, then what else people run
ENGINE_LABELS = {"hf": "HF transformers", "vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM",
                 "lmdeploy": "LMDeploy", "llamacpp": "llama.cpp", "ollama": "Ollama (llama.cpp)", "mlc": "MLC-LLM",
                 "exllamav2": "ExLlamaV2", "autoawq": "AutoAWQ"}  # fmt: skip


@dataclass
class ServingSetup:
    """Validated settings the physics needs."""

    spec: ModelSpec
    weights: WeightFormat
    kv: KVFormat
    gpu: GPU
    engine: Engine
    family: DeviceFamily
    efficiency: Efficiency
    data: ServingData
    peak_tflops: float  # dense 16-bit compute peak the GEMM times use (see _compute_peak)
    tp: int
    num_gpus: int
    replicas: int
    chain: int  # GPUs in a layer split (1 with tensor parallelism)
    batch: int
    prompt: int
    output: int
    target_ttft_ms: float | None
    target_tps: float | None
    precision_basis: Text | None = None
    notes: list[Text] = field(default_factory=list)
    assumptions: list[Text] = field(default_factory=list)

    @property
    def layer_split(self) -> bool:
        return self.chain > 1

    @property
    def fp8_compute(self) -> bool:
        return self.weights.id in FP8_FORMATS


def error(code: str, en: str, zh: str, suggestions: list[str] | tuple[str, ...] = ()) -> AdvisorError:
    return AdvisorError(code, en, zh, suggestions)


@lru_cache(maxsize=256)
def _gpu(name: str, catalog: Catalog) -> GPU:
    return catalog.gpu(name)


def resolve_setup(request: ThroughputRequest, catalog: Catalog, data: ServingData) -> ServingSetup:
    _check_numbers(request)
    spec, overridden = resolve_sized_model(request.model, request.params_b, catalog)
    gpu = stated_memory(_gpu(request.gpu, catalog), request.gpu_memory_gb)
    request, precision_note = _default_precision(request, spec, catalog)
    named = "engine" in request.model_fields_set
    asked_format = _format_id(request.precision)
    engine = data.engine(request.engine if named else _usual_engine(asked_format, gpu, data))
    _check_vendor(engine, gpu, data)
    # An alias is named for its GGUF library (Ollama pulls q4_k_m by default), so "int4" means that file there too
    reads_gguf_widths = engine.runtime == "llamacpp" and (not named or engine.alias_of is not None)
    as_file = GGUF_OF.get(asked_format or "") if reads_gguf_widths else None
    weights = _weights(request.model_copy(update={"precision": as_file}) if as_file else request, engine, gpu, data)
    kv, kv_note = _kv(request, engine, weights, data)
    tp, num_gpus, replicas, chain = _parallelism(request, engine, spec, gpu)
    family = data.family(gpu)
    peak, peak_note = _compute_peak(gpu)
    setup = ServingSetup(
        spec=spec, weights=weights, kv=kv, gpu=gpu, engine=engine, family=family,
        efficiency=data.efficiency(engine.id, family.id), data=data, peak_tflops=peak, tp=tp, num_gpus=num_gpus,
        replicas=replicas, chain=chain, batch=request.batch, prompt=request.prompt_tokens, output=request.output_tokens,
        target_ttft_ms=request.target_ttft_ms, target_tps=request.target_tokens_per_s_per_user,
        precision_basis=precision_note,
    )  # fmt: skip
    setup.notes.extend(note for note in (precision_note, peak_note, kv_note) if note is not None)
    if as_file:
        setup.notes.append(TEXT.text("setup.gguf_file", engine=engine.name, precision=request.precision, file=as_file.upper()))
    if overridden:
        setup.notes.append(TEXT.text("setup.params_overridden", params_b=spec.params_b, model=_model(spec)))
    elsewhere = data.unmeasured_format(engine.runtime, family.id, weights.id)
    if data.format_gap and elsewhere:
        fill = {"format": weights.id.upper(), "engine": engine.name, "factor": f"{elsewhere.bandwidth_factor:g}"}
        setup.notes.append(Text(en=data.format_gap.en.format(family=family.label_en, **fill),
                                zh=data.format_gap.zh.format(family=family.label_zh, **fill)))  # fmt: skip
    if spec.family == "generic":
        setup.notes.append(Text(en=spec.source, zh=GENERIC_SOURCE_ZH))
    if request.prompt_tokens + request.output_tokens > spec.max_context:
        setup.notes.append(TEXT.text("setup.context_beyond_model", tokens=request.prompt_tokens + request.output_tokens, model=_model(spec),
                                     max_context=spec.max_context))  # fmt: skip
    return setup


def _model(spec: ModelSpec) -> Text:
    """The model's name in each language (the catalog's Chinese label may differ from the English name)."""
    return Text(en=spec.name, zh=spec.label.zh)


def _compute_peak(gpu: GPU) -> tuple[float, Text | None]:
    """Dense 16-bit TFLOPS for prefill and batched decode: the tensor figure, else the FP32 rate and a note
    saying so. A GPU with neither is refused: a made-up peak would silently turn into a made-up speed."""
    if gpu.bf16_tflops:
        return gpu.bf16_tflops, None
    if gpu.fp16_tflops:  # Volta/Turing: no BF16, the same work runs in FP16
        return gpu.fp16_tflops, fact_note("no_bf16_on_gpu", gpu=gpu.name, tflops=f"{gpu.fp16_tflops:g}")
    if gpu.fp32_tflops and gpu.vendor == "Apple":
        return gpu.fp32_tflops, TEXT.text("setup.apple_fp32", gpu=gpu.name, tflops=gpu.fp32_tflops)
    if gpu.fp32_tflops:
        return gpu.fp32_tflops, TEXT.text("setup.fp32_only", gpu=gpu.name, tflops=gpu.fp32_tflops)
    raise error(
        "gpu_compute_unknown",
        *TEXT.both("setup.gpu_compute_unknown", gpu=gpu.name),
        ["gpu=H100", "gpu=L40S", "gpu=RTX 4090"],
    )


def _check_numbers(request: ThroughputRequest) -> None:
    check_range(request.batch, *INPUT_NAMES.pair("serving_batch"), minimum=1, maximum=MAX_BATCH, code="invalid_batch", hint=["1", "16", "64"])
    if request.gpu_memory_gb is not None:
        check_range(request.gpu_memory_gb, *INPUT_NAMES.pair("serving_gpu_memory_gb"), minimum=1, maximum=4096, code="invalid_memory", hint=["24", "48", "80"])
    for value, name in ((request.prompt_tokens, "prompt_token_count"), (request.output_tokens, "output_token_count")):
        check_range(value, *INPUT_NAMES.pair(name), minimum=1, maximum=MAX_CONTEXT_TOKENS, code="invalid_tokens", hint=["256", "1024", "4096"])
    for value, name in ((request.num_gpus, "num_gpus"), (request.tp, "tp")):
        if value is not None:
            check_range(value, *INPUT_NAMES.pair(name), minimum=1, maximum=MAX_GPUS, code="invalid_parallelism", hint=["1", "2", "4", "8"])
    if request.target_ttft_ms is not None:
        check_range(request.target_ttft_ms, *INPUT_NAMES.pair("target_ttft_ms"), minimum=0, maximum=MAX_TARGET,
                    exclusive_minimum=True, code="invalid_target", hint=["500", "2000"])  # fmt: skip
    if request.target_tokens_per_s_per_user is not None:
        check_range(request.target_tokens_per_s_per_user, *INPUT_NAMES.pair("target_tokens_per_s_per_user"),
                    minimum=0, maximum=MAX_TARGET, exclusive_minimum=True, code="invalid_target", hint=["10", "30"])  # fmt: skip


def _default_precision(request: ThroughputRequest, spec: ModelSpec, catalog: Catalog) -> tuple[ThroughputRequest, Text | None]:
    """No precision given: the one a pasted checkpoint name states, else the one the checkpoint ships in."""
    if request.precision is not None:
        return request, None
    if (pasted := checkpoint_precision_note(request.model, catalog)) is not None:
        _, named, note = pasted
        return request.model_copy(update={"precision": named}), note
    if spec.shipped_precision:
        fmt = weight_format(spec.shipped_precision)
        note = fact_note("shipped_precision", model=spec.label, precision=Text(en=fmt.label, zh=fmt.name_zh),
                         source=spec.shipped_precision_source or spec.source)  # fmt: skip
        return request.model_copy(update={"precision": spec.shipped_precision}), note
    return request, None


def _format_id(precision: str | None) -> str | None:
    """The weight format asked for, in any spelling; None when none was, or it is unknown (refused, in words,
    when the weights are resolved)."""
    try:
        return weight_format(precision).id if precision else None
    except AdvisorError:
        return None


def _usual_engine(format_id: str | None, gpu: GPU, data: ServingData) -> str:
    """No engine named: vLLM, except for GGUF files, which only llama.cpp loads, and for hardware vLLM has no
    backend for (a Mac), where the first engine in USUAL_ENGINES that runs on it."""
    if format_id and is_gguf(format_id):
        return "llamacpp"
    able = engines_for(gpu.vendor, data)
    return next((e for e in USUAL_ENGINES if e in able), "vllm")


def engines_for(vendor: str, data: ServingData) -> list[str]:
    return [e.id for e in data.engines if vendor in e.vendors]


def _listed(items: list[str]) -> Text:
    joiner_en, joiner_zh = TEXT.pair("setup.list_joiner")
    return Text(en=joiner_en.join(items), zh=joiner_zh.join(items))


def _check_vendor(engine: Engine, gpu: GPU, data: ServingData) -> None:
    if gpu.vendor in engine.vendors:
        return
    others = engines_for(gpu.vendor, data)
    raise error(
        "engine_unsupported_gpu",
        *TEXT.both("setup.engine_unsupported_gpu", engine=engine.name, vendor=gpu.vendor, gpu=gpu.name,
                   engines=_listed([ENGINE_LABELS[e] for e in others]) if others else TEXT.text("setup.no_engines")),
        [f"engine={e}" for e in others] or ["gpu=H100"],
    )


def _weights(request: ThroughputRequest, engine: Engine, gpu: GPU, data: ServingData) -> WeightFormat:
    fmt = weight_format(request.precision or "bf16")
    if fmt.id not in engine.weight_formats:
        gguf = is_gguf(fmt.id)
        able = [e.id for e in data.engines if fmt.id in e.weight_formats and gpu.vendor in e.vendors]
        if engine.runtime == "llamacpp":
            hint, suggestions = TEXT.text("setup.gguf_engine_loads", engine=engine.name), ["precision=q4_k_m", "precision=q8_0", "precision=fp16"]
        elif gguf:
            hint, suggestions = TEXT.text("setup.gguf_is_llamacpp"), ["engine=llamacpp", "precision=awq-int4", "precision=gptq-int4"]
        else:
            hint = TEXT.text("setup.engine_loads", engine=engine.name, formats=_listed(engine.weight_formats[:8]))
            suggestions = [f"engine={e}" for e in able] + [f"precision={f}" for f in engine.weight_formats[:3]]
        raise error(
            "engine_unsupported_precision",
            *TEXT.both("setup.engine_unsupported_precision", engine=engine.name, hint=hint,
                       weights=Text(en=fmt.label, zh=fmt.name_zh.removesuffix(TEXT.entry("setup.weights_suffix_zh")))),
            suggestions,
        )  # fmt: skip
    if fmt.id in FP8_FORMATS and gpu.fp8_tflops is None:
        raise error(
            "fp8_unsupported",
            *TEXT.both("setup.fp8_unsupported", gpu=gpu.name),
            ["precision=int8", "precision=bf16", "gpu=H100"],
        )
    return fmt


def _kv(request: ThroughputRequest, engine: Engine, weights: WeightFormat, data: ServingData) -> tuple[KVFormat, Text | None]:
    """The KV format asked for, else the one the engine's checkpoints of these weights set (TensorRT-LLM FP8: FP8), else BF16."""
    from_checkpoint = engine.checkpoint_kv.get(weights.id) if request.kv_precision is None else None
    kv = kv_format(request.kv_precision or from_checkpoint or "bf16")
    if kv.id in engine.kv_formats:
        note = None
        if from_checkpoint:
            note = fact_note(
                "checkpoint_kv", kv=kv.id.upper(), engine=engine.name, precision=weights.id.upper(), source=engine.checkpoint_kv_source
            )
        return kv, note
    able = [e.id for e in data.engines if kv.id in e.kv_formats]
    raise error(
        "engine_unsupported_kv_precision",
        *TEXT.both("setup.engine_unsupported_kv", engine=engine.name, kv=kv.id, formats=_listed(engine.kv_formats)),
        [f"kv_precision={k}" for k in engine.kv_formats if k != "fp32"] + [f"engine={e}" for e in able[:2]],
    )


def _parallelism(request: ThroughputRequest, engine: Engine, spec: ModelSpec, gpu: GPU) -> tuple[int, int, int, int]:
    """(tp, num_gpus, replicas, chain)."""
    if gpu.vendor == "Apple" and (request.num_gpus or 1) * (request.tp or 1) > 1:
        raise error(
            "no_multi_gpu_on_apple",
            *TEXT.both("setup.no_multi_gpu_on_apple", gpu=gpu.name),
            ["num_gpus=1", "precision=q4_k_m"],
        )
    if engine.multi_gpu == "layers":
        if request.tp not in (None, 1):
            raise error(
                "layer_split_engine_tp",
                *TEXT.both("setup.layer_split_engine_tp", engine=engine.name),
                ["tp=1", "engine=vllm"],
            )
        chain = request.num_gpus or 1
        if chain > spec.layers:
            raise error(
                "invalid_parallelism",
                *TEXT.both("setup.layers_exceeded", chain=chain, model=_model(spec), layers=spec.layers),
                [f"num_gpus={min(spec.layers, 8)}"],
            )
        return 1, chain, 1, chain
    tp = request.tp or request.num_gpus or 1
    num_gpus = request.num_gpus or tp
    if num_gpus % tp:
        raise error(
            "invalid_parallelism",
            *TEXT.both("setup.tp_not_dividing_gpus", tp=tp, gpus=num_gpus),
            [f"num_gpus={tp * max(1, num_gpus // tp)}", f"tp={num_gpus}"],
        )
    if spec.heads % tp:
        valid = [d for d in range(1, min(spec.heads, 64) + 1) if spec.heads % d == 0]
        raise error(
            "tp_not_dividing_heads",
            *TEXT.both("setup.tp_not_dividing_heads", tp=tp, model=_model(spec), heads=spec.heads, valid=_listed([str(d) for d in valid])),
            [f"tp={d}" for d in valid],
        )
    return tp, num_gpus, num_gpus // tp, 1
