"""Turn a ``MemoryRequest`` into checked, resolved settings; contradictions become ``AdvisorError``."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from knowledge.models import ModelSpec
from tools.checks import INPUT_NAMES, check_range
from tools.memory.constants import MAX_BATCH, MAX_CONTEXT_TOKENS, MAX_GPUS
from tools.memory.items import MEMORY_TEXT
from tools.memory.recipes import RECIPES, Recipe, fp32_variant
from tools.memory.schema import MemoryRequest
from tools.memory.shapes import lora_targets
from tools.models.generic import SOURCE_ZH as GENERIC_SOURCE_ZH
from tools.models.resolve import checkpoint_precision_note, resolve_sized_model
from tools.precision import KVFormat, WeightFormat, computes_in_fp8, kv_format, weight_format

FSDP_TO_ZERO = {"FULL_SHARD": 3, "HYBRID_SHARD": 3, "SHARD_GRAD_OP": 2, "NO_SHARD": 0}
QLORA_BASES = {"nf4", "bnb-4bit", "bnb-int8", "int8", "int4", "gptq-int4", "gptq-int8", "awq-int4"}


@dataclass
class Setup:
    """Everything the inference/training calculators need, already validated."""

    spec: ModelSpec
    mode: str
    weights: WeightFormat
    kv: KVFormat
    batch: int
    context: int
    prompt_tokens: int
    prefill_chunk: int | None
    engine: str
    utilization: float
    flash: bool
    method: str
    recipe: Recipe
    lora_rank: int
    lora_targets: tuple[str, ...]
    trainable_layers: int
    zero_stage: int
    offload: str
    recompute: str
    sequence_parallel: bool
    tp: int
    pp: int
    dp: int
    grad_accumulation: int
    chunked_loss: bool
    compile: bool
    optimizer_in_backward: bool
    activation_offload: bool
    fsdp: str | None
    gpu: GPU | None
    precision_basis: Text | None = None
    notes: list[Text] = field(default_factory=list)
    assumptions: list[Text] = field(default_factory=list)

    @property
    def num_gpus(self) -> int:
        return self.tp * self.pp * self.dp


def contradiction(code: str, en: str, zh: str, suggestions: list[str] | tuple[str, ...] = ()) -> AdvisorError:
    return AdvisorError(code, en, zh, suggestions)


@lru_cache(maxsize=256)
def _gpu_cached(name: str, catalog: Catalog) -> GPU:
    return catalog.gpu(name)


STATED_CARD = "stated-memory"


def _stated_card(memory_gb: float | None) -> GPU | None:
    """A card known only by its memory ("my 10 GB card"): enough for the fit, which reads nothing else."""
    if memory_gb is None:
        return None
    return GPU.model_construct(id=STATED_CARD, name=f"{memory_gb:g} GB GPU", memory_gb=memory_gb)  # "the 10 GB GPU has 10.7 GB"


def stated_memory(gpu: GPU, memory_gb: float | None) -> GPU:
    """A named card whose memory the user states differently (a modded 48 GB RTX 4090): the user's figure wins."""
    if memory_gb is None or memory_gb == gpu.memory_gb:
        return gpu
    return gpu.model_copy(update={"memory_gb": memory_gb})


def resolve_setup(request: MemoryRequest, catalog: Catalog) -> Setup:
    spec, overridden = resolve_sized_model(request.model, request.params_b, catalog)
    gpu = stated_memory(_gpu_cached(request.gpu, catalog), request.gpu_memory_gb) if request.gpu else _stated_card(request.gpu_memory_gb)
    _check_numbers(request)
    training = request.mode == "training"
    tp, pp = request.tp, request.pp
    num_gpus = request.num_gpus if request.num_gpus is not None else tp * pp
    _check_parallelism(spec, tp, pp, num_gpus)
    zero = _zero_stage(request)
    dp = num_gpus // (tp * pp)
    request, basis, defaults = _default_precisions(request, spec, gpu, catalog)
    weights = _weight_format(request, training)
    recipe = RECIPES[request.optimizer]
    if training and weights.id == "fp32" and request.method in ("full", "freeze"):
        recipe = fp32_variant(recipe)
    setup = Setup(
        spec=spec,
        mode=request.mode,
        weights=weights,
        kv=kv_format(request.kv_precision or "bf16"),
        batch=request.batch,
        context=request.context,
        prompt_tokens=min(request.prompt_tokens or request.context, request.context),
        prefill_chunk=request.prefill_chunk,
        engine=request.engine,
        utilization=request.gpu_memory_utilization,
        flash=request.flash_attention,
        method=request.method,
        recipe=recipe,
        lora_rank=request.lora_rank,
        lora_targets=lora_targets(request.lora_targets) if request.method in ("lora", "qlora") else (),
        trainable_layers=request.trainable_layers,
        zero_stage=zero,
        offload=request.offload,
        recompute=request.recompute,
        sequence_parallel=request.sequence_parallel,
        tp=tp,
        pp=pp,
        dp=dp,
        grad_accumulation=request.grad_accumulation,
        chunked_loss=request.chunked_loss,
        compile=request.torch_compile,
        optimizer_in_backward=request.optimizer_in_backward,
        activation_offload=request.activation_offload,
        fsdp=request.fsdp,
        gpu=gpu,
    )
    _check_training(setup, request)
    setup.precision_basis = basis
    setup.notes.extend(note for note in (basis, *defaults) if note is not None)
    if overridden:
        setup.notes.append(MEMORY_TEXT.text("setup.params_overridden", params_b=spec.params_b, model=spec.name))
    if spec.family == "generic":
        setup.notes.append(Text(en=spec.source, zh=GENERIC_SOURCE_ZH))
    if request.context > spec.max_context:
        setup.notes.append(MEMORY_TEXT.text("setup.context_beyond_model", context=request.context, model=spec.name, max_context=spec.max_context))
    return setup


def _default_precisions(
    request: MemoryRequest, spec: ModelSpec, gpu: GPU | None, catalog: Catalog
) -> tuple[MemoryRequest, Text | None, list[Text]]:
    """Precisions the user left open: a checkpoint's shipped format for inference, FP16 where the card has no BF16.
    Returns the request, why the weights' precision was chosen (None when it was asked for) and other notes."""
    notes: list[Text] = []
    basis: Text | None = None
    update: dict[str, str] = {}
    pasted = checkpoint_precision_note(request.model, catalog) if request.precision is None else None
    if pasted is not None:
        _, update["precision"], basis = pasted
    elif request.precision is None and spec.shipped_precision and request.mode == "inference":
        shipped = dict(model=spec.label, precision=_format_label(spec.shipped_precision), source=spec.shipped_precision_source or spec.source)
        if _catalog_card(gpu) and not computes_in_fp8(spec.shipped_precision, gpu.fp8_tflops) and not _runs_fp8_weight_only(gpu):
            # no FP8 kernels at all on this card: the usual route is the checkpoint converted to BF16
            update["precision"] = "bf16"
            basis = fact_note("shipped_precision_not_native", gpu=gpu.name, **shipped)
        else:
            update["precision"] = spec.shipped_precision
            basis = fact_note("shipped_precision", **shipped)
    if _catalog_card(gpu) and gpu.bf16_tflops is None and gpu.fp16_tflops:
        if (update.get("precision") or request.precision or "bf16") in ("bf16", "bfloat16"):
            update["precision"] = "fp16"
            notes.append(fact_note("no_bf16_on_gpu", gpu=gpu.name, tflops=f"{gpu.fp16_tflops:g}"))
        if (request.kv_precision or "bf16") in ("bf16", "bfloat16"):
            update["kv_precision"] = "fp16"
    return (request.model_copy(update=update) if update else request), basis, notes


def _runs_fp8_weight_only(gpu: GPU) -> bool:
    """An NVIDIA card with BF16 but no FP8 tensor cores (A100, A800, A10, A40): vLLM keeps FP8 weights in
    memory and computes in 16-bit (Marlin W8A16 kernels, Ampere and newer), so the FP8 release is what it holds,
    not a BF16 copy twice the size. Older cards (V100, T4) have no BF16 and no such kernels."""
    return gpu.vendor == "NVIDIA" and gpu.bf16_tflops is not None


def _catalog_card(gpu: GPU | None) -> bool:
    """A catalog GPU, whose formats are known (a card known by its memory alone has none on record)."""
    return gpu is not None and gpu.id != STATED_CARD


def _format_label(precision: str) -> Text:
    fmt = weight_format(precision)
    return Text(en=fmt.label, zh=fmt.name_zh)


def _check_numbers(request: MemoryRequest) -> None:
    check_range(request.batch, *INPUT_NAMES.pair("batch"), minimum=1, maximum=MAX_BATCH, code="invalid_batch", hint=["1", "8", "32"])
    check_range(request.context, *INPUT_NAMES.pair("context"), minimum=1, maximum=MAX_CONTEXT_TOKENS,
                code="invalid_context", hint=["4096", "32768", "131072"])  # fmt: skip
    if request.prompt_tokens is not None:
        check_range(request.prompt_tokens, *INPUT_NAMES.pair("prompt_tokens"), minimum=1, maximum=MAX_CONTEXT_TOKENS, code="invalid_context")
    if request.prefill_chunk is not None:
        check_range(request.prefill_chunk, *INPUT_NAMES.pair("prefill_chunk"), minimum=1, maximum=MAX_CONTEXT_TOKENS, code="invalid_context")
    check_range(request.gpu_memory_utilization, *INPUT_NAMES.pair("gpu_memory_utilization"), minimum=0, maximum=1,
                exclusive_minimum=True, code="invalid_utilization", hint=["0.9"])  # fmt: skip
    check_range(request.group_size, *INPUT_NAMES.pair("group_size"), minimum=16, maximum=8192, code="invalid_group_size", hint=["128"])
    for value, name in ((request.tp, "tp"), (request.pp, "pp")):
        check_range(value, *INPUT_NAMES.pair(name), minimum=1, maximum=MAX_GPUS, code="invalid_parallelism")
    if request.num_gpus is not None:
        check_range(request.num_gpus, *INPUT_NAMES.pair("num_gpus"), minimum=1, maximum=MAX_GPUS, code="invalid_gpu_count", hint=["1", "8"])
    check_range(request.grad_accumulation, *INPUT_NAMES.pair("grad_accumulation"), minimum=1, maximum=1e6, code="invalid_batch")
    if request.mode == "training" and request.method in ("lora", "qlora"):
        check_range(request.lora_rank, *INPUT_NAMES.pair("lora_rank"), minimum=1, maximum=65536, code="invalid_lora_rank", hint=["8", "16", "64"])


def _check_parallelism(spec: ModelSpec, tp: int, pp: int, num_gpus: int) -> None:
    if tp * pp > num_gpus or num_gpus % (tp * pp):
        raise contradiction(
            "invalid_parallelism",
            **MEMORY_TEXT.text("setup.tp_pp_not_dividing", product=tp * pp, gpus=num_gpus).model_dump(),
            suggestions=[f"num_gpus={tp * pp}"],
        )
    if spec.heads % tp:
        divisors = [str(d) for d in range(1, min(spec.heads, 64) + 1) if spec.heads % d == 0]
        raise contradiction(
            "tp_not_dividing_heads",
            **MEMORY_TEXT.text("setup.tp_not_dividing_heads", tp=tp, model=spec.name, heads=spec.heads).model_dump(),
            suggestions=divisors,
        )
    if pp > spec.layers:
        raise contradiction(
            "invalid_parallelism",
            **MEMORY_TEXT.text("setup.pp_beyond_layers", pp=pp, layers=spec.layers).model_dump(),
            suggestions=[str(spec.layers)],
        )


def _zero_stage(request: MemoryRequest) -> int:
    check_range(request.zero_stage, *INPUT_NAMES.pair("zero_stage"), minimum=0, maximum=3, code="invalid_zero_stage", hint=["0", "1", "2", "3"])
    if request.fsdp is None:
        return int(request.zero_stage)
    mapped = FSDP_TO_ZERO[request.fsdp]
    if request.zero_stage not in (0, mapped):
        raise contradiction(
            "conflicting_sharding",
            **MEMORY_TEXT.text("setup.conflicting_sharding", fsdp=request.fsdp, mapped=mapped, zero=request.zero_stage).model_dump(),
            suggestions=[f"zero_stage={mapped}"],
        )
    return mapped


def _weight_format(request: MemoryRequest, training: bool) -> WeightFormat:
    if not training:
        return weight_format(request.precision or "bf16", request.group_size)
    if request.method == "qlora":
        fmt = weight_format(request.precision or "nf4", request.group_size)
        if fmt.id not in QLORA_BASES:
            raise contradiction(
                "qlora_needs_quantized_base",
                **MEMORY_TEXT.text("setup.qlora_needs_quantized_base", format=fmt.id).model_dump(),
                suggestions=["nf4", "bnb-int8", "method=lora"],
            )
        return fmt
    fmt = weight_format(request.precision or "bf16", request.group_size)
    if fmt.quantized and request.method == "full":
        raise contradiction(
            "cannot_train_quantized",
            **MEMORY_TEXT.text("setup.cannot_train_quantized", format=Text(en=fmt.label, zh=fmt.name_zh)).model_dump(),
            suggestions=["method=qlora", "precision=bf16"],
        )
    if fmt.quantized and request.method == "lora":
        raise contradiction(
            "lora_on_quantized_base",
            **MEMORY_TEXT.text("setup.lora_on_quantized_base", format=Text(en=fmt.label, zh=fmt.name_zh)).model_dump(),
            suggestions=["method=qlora"],
        )
    return fmt


def _check_training(setup: Setup, request: MemoryRequest) -> None:
    if setup.mode != "training":
        if setup.zero_stage or request.fsdp or setup.offload != "none":
            raise contradiction(
                "training_option_for_inference",
                **MEMORY_TEXT.text("setup.training_option_for_inference").model_dump(),
                suggestions=["mode=training"],
            )
        return
    if setup.engine != "hf":
        raise contradiction(
            "engine_for_training",
            **MEMORY_TEXT.text("setup.engine_for_training", engine=setup.engine).model_dump(),
            suggestions=["engine=hf", "mode=inference"],
        )
    sharding = setup.zero_stage > 0
    if sharding and setup.dp == 1 and setup.offload == "none":
        raise contradiction(
            "zero_on_one_gpu",
            **MEMORY_TEXT.text("setup.zero_on_one_gpu", zero=setup.zero_stage).model_dump(),
            suggestions=["num_gpus=8", "offload=optimizer", "zero_stage=0"],
        )
    if setup.offload == "optimizer_and_params" and setup.zero_stage < 3:
        raise contradiction(
            "param_offload_needs_zero3",
            **MEMORY_TEXT.text("setup.param_offload_needs_zero3").model_dump(),
            suggestions=["zero_stage=3", "offload=optimizer"],
        )
    if setup.method == "freeze":
        check_range(setup.trainable_layers, *INPUT_NAMES.pair("trainable_layers"), minimum=1, maximum=setup.spec.layers,
                    code="invalid_trainable_layers", hint=["2", str(setup.spec.layers)])  # fmt: skip
    if setup.lora_rank > setup.spec.hidden and setup.method in ("lora", "qlora"):
        raise contradiction(
            "invalid_lora_rank",
            **MEMORY_TEXT.text("setup.invalid_lora_rank", rank=setup.lora_rank, hidden=setup.spec.hidden).model_dump(),
            suggestions=["8", "16", "64"],
        )
    if setup.optimizer_in_backward and setup.grad_accumulation > 1:
        raise contradiction(
            "optimizer_in_backward_accumulation",
            **MEMORY_TEXT.text("setup.optimizer_in_backward_accumulation").model_dump(),
            suggestions=["grad_accumulation=1"],
        )
