"""How long, how many GPU-hours, how much energy and money a pre-training or fine-tuning run takes.

Compute follows the standard dense-transformer estimate: training FLOPs ≈ 6 · N · D (forward 2ND,
backward 4ND) with N the parameters that work on each token (the active ones for MoE) and D the
tokens. Time = FLOPs / (GPUs × dense peak × MFU). The MFU default comes from ``tools.cost.mfu`` and is
always returned so the user can see and override it. Attention FLOPs are ignored, which slightly
flatters long-context runs.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.common import LineItem, formula_fields
from tools.cost.mfu import DEFAULT_GOODPUT, FP8_MFU_FACTOR, MFU_TABLE, MfuRow, default_mfu_row
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency, check_exchange_rate, money, normalize_currency, price_in
from tools.models.resolve import MAX_PARAMS_B, resolve_model
from tools.quantities import parse_number

TEXT = shipped("training_time_text.yaml")
FIELDS = shipped("tool_field_descriptions.yaml")

Recompute = Literal["none", "selective", "full"]
Method = Literal["full", "lora", "qlora"]

# FLOPs per parameter per token. Full training: forward 2, backward 4 (gradients of the activations and
# of the weights). LoRA freezes the base weights, so their weight-gradient matmuls are never run: 4
# (the adapters add well under 1% at usual ranks). Hu et al. 2021 (LoRA, §4.2) measured a 25% speed-up
# on GPT-3 175B, a little less than the 33% the count predicts, so the LoRA figure leans optimistic.
FLOPS_PER_PARAM_TOKEN: dict[str, float] = {"full": 6.0, "lora": 4.0, "qlora": 4.0}
# Full recompute re-runs the forward pass (+2). Selective recompute re-runs only the cheap attention
# parts: Korthikanti et al. 2022 report it removes over 90% of full recompute's time overhead, so we
# charge 10% of the extra forward pass (+0.2).
RECOMPUTE_FLOPS: dict[str, float] = {"none": 0.0, "selective": 0.2, "full": 2.0}
# QLoRA de-quantises the 4-bit base weights in every pass: S. Raschka's LoRA experiments (Lightning AI,
# "Finetuning LLMs with LoRA and QLoRA: Insights from Hundreds of Experiments", 2023) measured QLoRA
# runs 39% longer than LoRA on the same 7B model and data, for 33% less memory.
QLORA_SLOWDOWN = 1.39

MAX_GPUS = 1_000_000  # ~5x the largest clusters announced by 2025; beyond this the input is a typo
MAX_TOKENS = 1e15  # 1,000T tokens: ~30x the largest public pre-training corpora
MAX_DEADLINE_DAYS = 3650
# Floors rather than "> 0": a denormal deadline, MFU or peak divides the FLOPs into inf GPU-hours
# (and ceil(inf) GPUs raises); values this small are typos, not hardware.
MIN_DEADLINE_DAYS = 1e-6  # a tenth of a second: far below any real run, far above a denormal
MIN_MFU = 0.001
MIN_PEAK_TFLOPS = 0.01
MIN_GOODPUT = 0.1  # below this a run mostly restarts: a typo or a broken cluster, not a plan
HIGH_MFU = 0.6  # the best published large-scale runs sit around 0.55 (Megatron 530B: 54.2% on A100)
SECONDS_PER_DAY = 86_400


class TrainingTimeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | dict | None = Field(
        None,
        description=FIELDS.entry("training_time.model"),
    )
    params_b: float | None = Field(
        None, description="Parameters in billions that work on each token; overrides the model (give the ACTIVE count for MoE)."
    )
    tokens: float = Field(description=FIELDS.entry("training_time.tokens"))
    gpu: str = Field(description="GPU name or alias, e.g. 'H100', 'A100 80G', '4090'.")
    num_gpus: int | None = Field(None, description="GPUs in the job (1–1,000,000). Give this, deadline_days, or both.")
    deadline_days: float | None = Field(
        None, description="Finish within this many days; without num_gpus the tool returns how many GPUs that needs."
    )
    method: Method = Field(
        "full",
        description="'full' (pre-training or full fine-tuning: 6 FLOPs per parameter per token), 'lora' (frozen base, no weight "
        "gradients: 4) or 'qlora' (LoRA on a 4-bit base: 4, and de-quantising the weights makes it about 1.39× slower).",
    )
    precision: Literal["bf16", "fp8"] = Field("bf16", description="Matmul precision: 'bf16' (also covers fp16) or 'fp8'.")
    recompute: Recompute = Field(
        "none", description="Activation recomputation (checkpointing): 'none', 'selective' or 'full' (adds a forward pass)."
    )
    mfu: float | None = Field(None, description="Your measured MFU as a fraction (0–1, e.g. 0.4); default from the table.")
    goodput: float = Field(
        1.0,
        description=f"Share of booked GPU time that trains (restarts, evaluation and stalls take the rest), 0.1–1. 1.0 = pure "
        f"compute time; {DEFAULT_GOODPUT} is the planning allowance (Llama 3 paper: over 90% effective training time).",
    )
    peak_tflops: float | None = Field(
        None, description="Dense TFLOPS per GPU at the chosen precision; overrides the catalog (for hardware it lacks)."
    )
    price_per_gpu_hour: float | None = Field(
        None, description="Price per GPU-hour in `currency` (≥ 0); default: the catalog's on-demand cloud price."
    )
    currency: str = Field("USD", description="'USD' or 'CNY' for the cost figure.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="Exchange rate, CNY per USD, for converting catalog prices.")
    pue: float = Field(1.3, description="Data-centre power usage effectiveness (1.0–3.0); 1.2–1.4 is typical for planning.")
    electricity_price: float | None = Field(
        None, ge=0, le=10, description="Electricity per kWh in `currency`, for the power bill of owned GPUs (e.g. 0.12 USD, 0.8 CNY)."
    )

    @field_validator("tokens", mode="before")
    @classmethod
    def _tokens_as_typed(cls, value: object) -> object:
        # Users and LLMs write "2T" or the Chinese for 1.4 trillion; anything unparseable is left for the float check.
        if isinstance(value, str):
            parsed = parse_number(value)
            return value if parsed is None else parsed
        return value


class TrainingTimeResult(BaseModel):
    model_id: str | None = Field(description="Resolved model id, when a model was given.")
    params_b: float = Field(description="Parameters (billions) used in the FLOPs formula.")
    tokens: float
    gpu_id: str
    gpu_name: str = Field(description="The GPU's display name.")
    num_gpus: int = Field(description="GPUs used for the estimate (the number needed, in deadline mode).")
    gpus_derived_from_deadline: bool
    method: Method
    precision: str
    recompute: str
    peak_tflops: float = Field(description="Dense TFLOPS per GPU at the chosen precision.")
    mfu: float = Field(description="MFU used, as a fraction of dense peak at the chosen precision.")
    goodput: float = Field(description="Share of booked GPU time that trains; GPU-hours and days are divided by it.")
    mfu_source: Literal["user", "default"]
    mfu_row: MfuRow | None = Field(description="The table row the default came from (None when the user gave mfu).")
    mfu_table: list[MfuRow] = Field(description="The whole default-MFU table, so the assumption is visible.")
    total_flops: float
    gpu_hours: float
    wall_clock_days: float
    energy_kwh: float | None = Field(description="GPU board energy × PUE (a whole server draws more); None without a TDP.")
    cost: float | None = Field(description="GPU-hours × price; None when no price is known.")
    electricity_cost: float | None = Field(None, description="Energy × electricity price, when a price per kWh was given.")
    currency: Currency
    price_per_gpu_hour: float | None
    deadline_days: float | None
    meets_deadline: bool | None
    items: list[LineItem]
    warnings: list[Text]


def _sci(value: float) -> str:
    return f"{value:.3g}" if value < 1e5 else f"{value:.3e}".replace("e+", "e")


def _check_request(request: TrainingTimeRequest) -> None:
    check_range(request.tokens, *INPUT_NAMES.pair("training_tokens"), minimum=0, maximum=MAX_TOKENS, exclusive_minimum=True, code="invalid_tokens")
    if request.params_b is not None:
        check_range(request.params_b, *INPUT_NAMES.pair("parameters_billions"), minimum=0, maximum=MAX_PARAMS_B, exclusive_minimum=True, code="invalid_params")
    if request.num_gpus is not None:
        check_range(request.num_gpus, *INPUT_NAMES.pair("number_of_gpus"), minimum=1, maximum=MAX_GPUS, code="invalid_gpu_count")
    if request.deadline_days is not None:
        check_range(request.deadline_days, *INPUT_NAMES.pair("deadline_days"), minimum=MIN_DEADLINE_DAYS, maximum=MAX_DEADLINE_DAYS, code="invalid_deadline")
    if request.mfu is not None:
        check_range(request.mfu, *INPUT_NAMES.pair("mfu"), minimum=MIN_MFU, maximum=1, code="invalid_mfu")
    if request.peak_tflops is not None:
        check_range(request.peak_tflops, *INPUT_NAMES.pair("peak_tflops"), minimum=MIN_PEAK_TFLOPS, maximum=1e5, code="invalid_peak")
    if request.price_per_gpu_hour is not None:
        check_range(request.price_per_gpu_hour, *INPUT_NAMES.pair("price_per_gpu_hour"), minimum=0, maximum=1e4, code="invalid_price")
    check_range(request.goodput, *INPUT_NAMES.pair("goodput"), minimum=MIN_GOODPUT, maximum=1, code="invalid_goodput")
    check_range(request.pue, "PUE", "PUE", minimum=1, maximum=3, code="invalid_pue")
    check_exchange_rate(request.usd_to_cny)
    if request.num_gpus is None and request.deadline_days is None:
        raise AdvisorError(
            "missing_gpus_or_deadline",
            **TEXT.text("errors.missing_gpus_or_deadline").model_dump(),
            suggestions=["num_gpus", "deadline_days"],
        )


def _params(request: TrainingTimeRequest, catalog: Catalog) -> tuple[float, str | None, list[Text]]:
    """Parameters per token (billions), model id, warnings."""
    warnings: list[Text] = []
    spec = resolve_model(request.model, catalog) if request.model is not None else None
    if request.params_b is not None:
        return request.params_b, spec.id if spec else None, warnings
    if spec is None:
        raise AdvisorError(
            "missing_model", **TEXT.text("errors.missing_model").model_dump(), suggestions=["model", "params_b"]
        )
    if spec.active_params_b:
        warnings.append(TEXT.text("warnings.moe", model=spec.name, active=spec.active_params_b))
        return spec.active_params_b, spec.id, warnings
    return spec.params_b, spec.id, warnings


def _peak_tflops(request: TrainingTimeRequest, gpu: GPU) -> float:
    if request.peak_tflops is not None:
        return request.peak_tflops
    peak = gpu.fp8_tflops if request.precision == "fp8" else gpu.tensor16_tflops  # FP16 on chips without BF16
    if peak is not None:
        return peak
    if request.precision == "fp8":
        raise AdvisorError(
            "fp8_unsupported",
            **TEXT.text("errors.fp8_unsupported", gpu=gpu.name).model_dump(),
            suggestions=["bf16"],
        )
    raise AdvisorError(
        "no_peak_tflops",
        **TEXT.text("errors.no_peak_tflops", gpu=gpu.name).model_dump(),
        suggestions=["peak_tflops"],
    )


def _mfu(request: TrainingTimeRequest, gpu: GPU, num_gpus: int) -> tuple[float, MfuRow | None]:
    if request.mfu is not None:
        return request.mfu, None
    row = default_mfu_row(gpu, num_gpus)
    factor = FP8_MFU_FACTOR if request.precision == "fp8" else 1.0
    return row.mfu * factor, row


def _gpus_for_deadline(request: TrainingTimeRequest, gpu: GPU, flops: float, peak: float) -> int:
    """Smallest GPU count that finishes in time. MFU falls with scale, so re-solve until stable."""
    seconds = request.deadline_days * SECONDS_PER_DAY
    count = 1
    for _ in range(len(MFU_TABLE) + 1):  # each pass can only move into a lower-MFU row
        mfu = _mfu(request, gpu, count)[0]
        needed = max(1, math.ceil(flops / (seconds * peak * 1e12 * mfu) - 1e-9))
        if needed == count:
            break
        count = needed
    if count > MAX_GPUS:
        raise AdvisorError(
            "deadline_infeasible",
            **TEXT.text("errors.deadline_infeasible", deadline=request.deadline_days, count=count, gpu=gpu.name).model_dump(),
            suggestions=["deadline_days", "tokens", "gpu"],
        )
    return count


def estimate_training_time(request: TrainingTimeRequest, catalog: Catalog) -> TrainingTimeResult:
    """Estimate wall-clock days, GPU-hours, energy and cost, or the GPUs a deadline needs."""
    _check_request(request)
    currency = normalize_currency(request.currency)
    gpu = catalog.gpu(request.gpu)
    params_b, model_id, warnings = _params(request, catalog)
    peak = _peak_tflops(request, gpu)
    k = FLOPS_PER_PARAM_TOKEN[request.method] + RECOMPUTE_FLOPS[request.recompute]
    flops = k * params_b * 1e9 * request.tokens
    # what the GPUs spend booked time on: de-quantising (QLoRA), and restarts and evaluation (goodput)
    work = flops * (QLORA_SLOWDOWN if request.method == "qlora" else 1.0) / request.goodput

    derived = request.num_gpus is None
    num_gpus = _gpus_for_deadline(request, gpu, work, peak) if derived else request.num_gpus
    mfu, row = _mfu(request, gpu, num_gpus)
    per_gpu_flops = peak * 1e12 * mfu
    gpu_hours = work / per_gpu_flops / 3600
    days = gpu_hours / num_gpus / 24
    energy = gpu.tdp_w / 1000 * gpu_hours * request.pue if gpu.tdp_w else None

    price = request.price_per_gpu_hour
    price_note = TEXT.text("given")
    if price is None and gpu.cloud_price is not None:
        price = price_in(gpu.cloud_price, currency, request.usd_to_cny)
        price_note = TEXT.text("catalog_price", note=gpu.cloud_price.note or "cloud on-demand", date=gpu.cloud_price.date)
    cost = gpu_hours * price if price is not None else None

    if gpu.inference_only:
        warnings.append(TEXT.text("warnings.inference_only", gpu=gpu.name))
    if request.mfu is not None and request.mfu > HIGH_MFU:
        warnings.append(TEXT.text("warnings.high_mfu", mfu=request.mfu))
    if energy is None:
        warnings.append(TEXT.text("warnings.no_tdp", gpu=gpu.name))
    if cost is None:
        warnings.append(TEXT.text("warnings.no_cloud_price", gpu=gpu.name))

    items = _items(request, gpu, flops, k, params_b, peak, mfu, row, gpu_hours, num_gpus, days, energy)
    if cost is not None:
        hours = f"{gpu_hours:,.0f}"
        unit_price, total = money(price, currency), money(cost, currency)
        items.append(_item("cost", cost, currency, hours=hours, unit_price=unit_price, price_note=price_note, total=total))
    power_bill = energy * request.electricity_price if energy is not None and request.electricity_price is not None else None
    if power_bill is not None:
        per_kwh = money(request.electricity_price, currency)
        items.append(_item("electricity_cost", power_bill, currency, energy=energy, per_kwh=per_kwh, bill=money(power_bill, currency)))
    meets = None if request.deadline_days is None else days <= request.deadline_days + 1e-9
    if meets is False:
        warnings.append(TEXT.text("warnings.past_deadline", gpus=num_gpus, days=days, deadline=request.deadline_days))

    return TrainingTimeResult(
        model_id=model_id, params_b=params_b, tokens=request.tokens, gpu_id=gpu.id, gpu_name=gpu.name, num_gpus=num_gpus,
        gpus_derived_from_deadline=derived, method=request.method, precision=request.precision, recompute=request.recompute,
        peak_tflops=peak, mfu=mfu, goodput=request.goodput, mfu_source="user" if row is None else "default", mfu_row=row, mfu_table=MFU_TABLE,
        total_flops=flops, gpu_hours=gpu_hours, wall_clock_days=days, energy_kwh=energy, cost=cost, electricity_cost=power_bill,
        currency=currency, price_per_gpu_hour=price, deadline_days=request.deadline_days, meets_deadline=meets, items=items, warnings=warnings,
    )  # fmt: skip


def _item(key: str, value: float, unit: str, **values: object) -> LineItem:
    """One figure with its label and its formula, both read from the text file under ``items.<key>``."""
    return LineItem(key=key, label=TEXT.text(f"items.{key}.label"), value=value, unit=unit,
                    **formula_fields(TEXT.text(f"items.{key}.formula", **values)))  # fmt: skip


def _items(request: TrainingTimeRequest, gpu: GPU, flops: float, k: float, params_b: float, peak: float, mfu: float,
           row: MfuRow | None, gpu_hours: float, num_gpus: int, days: float, energy: float | None) -> list[LineItem]:  # fmt: skip
    """Each figure with its formula in English and Chinese: the same numbers, the words translated."""
    if row is None:
        source = TEXT.text("given")
    else:
        gpus = f"{row.min_gpus}–{row.max_gpus or '∞'}"
        source = TEXT.text("mfu_row", row=TEXT.text(f"gpu_classes.{row.gpu_class}"), gpus=gpus)
        if request.precision == "fp8":
            source = TEXT.text("fp8_factor", source=source, factor=FP8_MFU_FACTOR)
    tokens, total, sustained, hours = _sci(request.tokens), _sci(flops), f"{peak * mfu:.4g}", f"{gpu_hours:,.0f}"
    name = {"lora": "LoRA", "qlora": "QLoRA"}.get(request.method)
    what = TEXT.text("no_weight_gradients", method=name) if name else Text(en="", zh="")
    slowdown = TEXT.text("qlora_slowdown", factor=QLORA_SLOWDOWN) if request.method == "qlora" else Text(en="", zh="")
    if request.goodput < 1:
        restarts = TEXT.text("goodput", goodput=request.goodput)
        slowdown = Text(en=slowdown.en + restarts.en, zh=slowdown.zh + restarts.zh)
    precision = Text(en=request.precision, zh=request.precision.upper())
    items = [
        _item("training_flops", flops, "FLOP", k=k, params_b=params_b, tokens=tokens, total=total, what=what),
        _item("mfu", mfu, "fraction", mfu=mfu, source=source),
        _item("sustained_tflops", peak * mfu, "TFLOPS", peak=peak, precision=precision, mfu=mfu, sustained=sustained),
        _item("gpu_hours", gpu_hours, "GPU-hours", total=total, sustained=sustained, slowdown=slowdown, hours=hours),
        _item("wall_clock_days", days, "days", hours=hours, gpus=num_gpus, days=days),
    ]
    if energy is not None:
        items.append(_item("energy", energy, "kWh", tdp=gpu.tdp_w, hours=hours, pue=request.pue, energy=energy))
    return items
