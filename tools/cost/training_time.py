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
from tools.checks import check_range
from tools.common import LineItem
from tools.cost.mfu import FP8_MFU_FACTOR, MFU_TABLE, MfuRow, default_mfu_row
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency, check_exchange_rate, money, normalize_currency, price_in
from tools.models.resolve import resolve_model
from tools.quantities import parse_number

Recompute = Literal["none", "selective", "full"]

# FLOPs per parameter per token. Full recompute re-runs the forward pass (+2). Selective recompute
# re-runs only the cheap attention parts: Korthikanti et al. 2022 report it removes over 90% of
# full recompute's time overhead, so we charge 10% of the extra forward pass (+0.2).
FLOPS_PER_PARAM_TOKEN: dict[str, float] = {"none": 6.0, "selective": 6.2, "full": 8.0}

MAX_GPUS = 1_000_000  # ~5x the largest clusters announced by 2025; beyond this the input is a typo
MAX_TOKENS = 1e15  # 1,000T tokens: ~30x the largest public pre-training corpora
MAX_PARAMS_B = 100_000  # 100T parameters
MAX_DEADLINE_DAYS = 3650
# Floors rather than "> 0": a denormal deadline, MFU or peak divides the FLOPs into inf GPU-hours
# (and ceil(inf) GPUs raises); values this small are typos, not hardware.
MIN_DEADLINE_DAYS = 1e-6  # a tenth of a second: far below any real run, far above a denormal
MIN_MFU = 0.001
MIN_PEAK_TFLOPS = 0.01
HIGH_MFU = 0.6  # the best published large-scale runs sit around 0.55 (Megatron 530B: 54.2% on A100)
SECONDS_PER_DAY = 86_400


class TrainingTimeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | dict | None = Field(
        None,
        description="Model to train: catalog name/alias ('llama-3.1-8b', 'Qwen2.5 7B'), a bare size ('7B', '70亿') or a Hugging Face config.json.",
    )
    params_b: float | None = Field(
        None, description="Parameters in billions that work on each token; overrides the model (give the ACTIVE count for MoE)."
    )
    tokens: float = Field(description="Training tokens, e.g. 2e12 or '2T' / '2万亿' (0 < tokens ≤ 1e15).")
    gpu: str = Field(description="GPU name or alias, e.g. 'H100', 'A100 80G', '4090'.")
    num_gpus: int | None = Field(None, description="GPUs in the job (1–1,000,000). Give this, deadline_days, or both.")
    deadline_days: float | None = Field(
        None, description="Finish within this many days; without num_gpus the tool returns how many GPUs that needs."
    )
    precision: Literal["bf16", "fp8"] = Field("bf16", description="Matmul precision: 'bf16' (also covers fp16) or 'fp8'.")
    recompute: Recompute = Field(
        "none", description="Activation recomputation (checkpointing): 'none', 'selective' or 'full' (adds a forward pass)."
    )
    mfu: float | None = Field(None, description="Your measured MFU as a fraction (0–1, e.g. 0.4); default from the table.")
    peak_tflops: float | None = Field(
        None, description="Dense TFLOPS per GPU at the chosen precision; overrides the catalog (for hardware it lacks)."
    )
    price_per_gpu_hour: float | None = Field(
        None, description="Price per GPU-hour in `currency` (≥ 0); default: the catalog's on-demand cloud price."
    )
    currency: str = Field("USD", description="'USD' or 'CNY' for the cost figure.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="Exchange rate, CNY per USD, for converting catalog prices.")
    pue: float = Field(1.3, description="Data-centre power usage effectiveness (1.0–3.0); 1.2–1.4 is typical for planning.")

    @field_validator("tokens", mode="before")
    @classmethod
    def _tokens_as_typed(cls, value: object) -> object:
        # Users and LLMs write "2T" or "1.4万亿"; anything unparseable is left for the float check.
        if isinstance(value, str):
            parsed = parse_number(value)
            return value if parsed is None else parsed
        return value


class TrainingTimeResult(BaseModel):
    model_id: str | None = Field(description="Resolved model id, when a model was given.")
    params_b: float = Field(description="Parameters (billions) used in the FLOPs formula.")
    tokens: float
    gpu_id: str
    num_gpus: int = Field(description="GPUs used for the estimate (the number needed, in deadline mode).")
    gpus_derived_from_deadline: bool
    precision: str
    recompute: str
    peak_tflops: float = Field(description="Dense TFLOPS per GPU at the chosen precision.")
    mfu: float = Field(description="MFU used, as a fraction of dense peak at the chosen precision.")
    mfu_source: Literal["user", "default"]
    mfu_row: MfuRow | None = Field(description="The table row the default came from (None when the user gave mfu).")
    mfu_table: list[MfuRow] = Field(description="The whole default-MFU table, so the assumption is visible.")
    total_flops: float
    gpu_hours: float
    wall_clock_days: float
    energy_kwh: float | None = Field(description="GPU board energy × PUE (a whole server draws more); None without a TDP.")
    cost: float | None = Field(description="GPU-hours × price; None when no price is known.")
    currency: Currency
    price_per_gpu_hour: float | None
    deadline_days: float | None
    meets_deadline: bool | None
    items: list[LineItem]
    warnings: list[Text]


def _sci(value: float) -> str:
    return f"{value:.3g}" if value < 1e5 else f"{value:.3e}".replace("e+", "e")


def _check_request(request: TrainingTimeRequest) -> None:
    check_range(request.tokens, "Training tokens", "训练 token 数", minimum=0, maximum=MAX_TOKENS, exclusive_minimum=True, code="invalid_tokens")
    if request.params_b is not None:
        check_range(request.params_b, "Parameters (billions)", "参数量（十亿）", minimum=0, maximum=MAX_PARAMS_B, exclusive_minimum=True, code="invalid_params")
    if request.num_gpus is not None:
        check_range(request.num_gpus, "Number of GPUs", "GPU 数量", minimum=1, maximum=MAX_GPUS, code="invalid_gpu_count")
    if request.deadline_days is not None:
        check_range(request.deadline_days, "Deadline (days)", "期限（天）", minimum=MIN_DEADLINE_DAYS, maximum=MAX_DEADLINE_DAYS, code="invalid_deadline")
    if request.mfu is not None:
        check_range(request.mfu, "MFU", "MFU（模型算力利用率）", minimum=MIN_MFU, maximum=1, code="invalid_mfu")
    if request.peak_tflops is not None:
        check_range(request.peak_tflops, "Peak TFLOPS", "峰值 TFLOPS", minimum=MIN_PEAK_TFLOPS, maximum=1e5, code="invalid_peak")
    if request.price_per_gpu_hour is not None:
        check_range(request.price_per_gpu_hour, "Price per GPU-hour", "每卡时价格", minimum=0, maximum=1e4, code="invalid_price")
    check_range(request.pue, "PUE", "PUE", minimum=1, maximum=3, code="invalid_pue")
    check_exchange_rate(request.usd_to_cny)
    if request.num_gpus is None and request.deadline_days is None:
        raise AdvisorError(
            "missing_gpus_or_deadline",
            "Give the number of GPUs, a deadline in days, or both.",
            "请给出 GPU 数量或期限（天数），或两者都给。",
            ["num_gpus", "deadline_days"],
        )


def _params(request: TrainingTimeRequest, catalog: Catalog) -> tuple[float, str | None, list[Text]]:
    """Parameters per token (billions), model id, warnings."""
    warnings: list[Text] = []
    spec = resolve_model(request.model, catalog) if request.model is not None else None
    if request.params_b is not None:
        return request.params_b, spec.id if spec else None, warnings
    if spec is None:
        raise AdvisorError(
            "missing_model", "Say which model (or how many parameters) to train.", "请说明要训练的模型或参数量。", ["model", "params_b"]
        )
    if spec.active_params_b:
        warnings.append(Text(
            en=f"{spec.name} is a mixture-of-experts model: FLOPs use its {spec.active_params_b:g}B active parameters, "
               "and MoE runs usually reach lower MFU than dense ones (expert all-to-all traffic). For reference, "
               "DeepSeek-V3 reported 180K H800 GPU-hours per trillion tokens: MFU ≈ 0.35 of BF16 peak, 0.17 of FP8 peak.",
            zh=f"{spec.name} 是 MoE 模型：FLOPs 按激活参数 {spec.active_params_b:g}B 计算；MoE 训练因专家间 all-to-all 通信，"
               "MFU 通常低于稠密模型。参考：DeepSeek-V3 公布每万亿 token 用 18 万 H800 卡时，约为 BF16 峰值的 0.35、FP8 峰值的 0.17。",
        ))  # fmt: skip
        return spec.active_params_b, spec.id, warnings
    return spec.params_b, spec.id, warnings


def _peak_tflops(request: TrainingTimeRequest, gpu: GPU) -> float:
    if request.peak_tflops is not None:
        return request.peak_tflops
    peak = gpu.fp8_tflops if request.precision == "fp8" else gpu.bf16_tflops
    if peak is not None:
        return peak
    if request.precision == "fp8":
        raise AdvisorError(
            "fp8_unsupported",
            f"{gpu.name} has no FP8 tensor cores; train in BF16 instead.",
            f"{gpu.name} 不支持 FP8 张量核心，请改用 BF16 训练。",
            ["bf16"],
        )
    raise AdvisorError(
        "no_peak_tflops",
        f"The catalog has no dense BF16 figure for {gpu.name}; pass peak_tflops (e.g. its FP16 tensor TFLOPS).",
        f"目录中没有 {gpu.name} 的稠密 BF16 算力，请通过 peak_tflops 提供（例如其 FP16 张量算力）。",
        ["peak_tflops"],
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
            f"Finishing in {request.deadline_days:g} days would need about {count:,} {gpu.name} GPUs, more than any cluster has.",
            f"要在 {request.deadline_days:g} 天内完成约需 {count:,} 张 {gpu.name}，超过任何现有集群的规模。",
            ["deadline_days", "tokens", "gpu"],
        )
    return count


def estimate_training_time(request: TrainingTimeRequest, catalog: Catalog) -> TrainingTimeResult:
    """Estimate wall-clock days, GPU-hours, energy and cost, or the GPUs a deadline needs."""
    _check_request(request)
    currency = normalize_currency(request.currency)
    gpu = catalog.gpu(request.gpu)
    params_b, model_id, warnings = _params(request, catalog)
    peak = _peak_tflops(request, gpu)
    k = FLOPS_PER_PARAM_TOKEN[request.recompute]
    flops = k * params_b * 1e9 * request.tokens

    derived = request.num_gpus is None
    num_gpus = _gpus_for_deadline(request, gpu, flops, peak) if derived else request.num_gpus
    mfu, row = _mfu(request, gpu, num_gpus)
    per_gpu_flops = peak * 1e12 * mfu
    gpu_hours = flops / per_gpu_flops / 3600
    days = gpu_hours / num_gpus / 24
    energy = gpu.tdp_w / 1000 * gpu_hours * request.pue if gpu.tdp_w else None

    price = request.price_per_gpu_hour
    price_note = "given"
    if price is None and gpu.cloud_price is not None:
        price = price_in(gpu.cloud_price, currency, request.usd_to_cny)
        price_note = f"catalog: {gpu.cloud_price.note or 'cloud on-demand'}, {gpu.cloud_price.date}"
    cost = gpu_hours * price if price is not None else None

    if gpu.inference_only:
        warnings.append(Text(
            en=f"{gpu.name} is meant for inference; training at this scale on it is impractical.",
            zh=f"{gpu.name} 主要用于推理，在它上面做这种规模的训练并不现实。",
        ))  # fmt: skip
    if request.mfu is not None and request.mfu > HIGH_MFU:
        warnings.append(Text(
            en=f"MFU {request.mfu:.0%} is above the best published large runs (~55%); the estimate is likely optimistic.",
            zh=f"MFU {request.mfu:.0%} 高于公开的大规模训练最好水平（约 55%），估计可能偏乐观。",
        ))  # fmt: skip
    if energy is None:
        warnings.append(Text(
            en=f"{gpu.name} has no published TDP, so energy is not estimated.",
            zh=f"{gpu.name} 没有公开的 TDP，因此不估算耗电量。",
        ))  # fmt: skip
    if cost is None:
        warnings.append(Text(
            en=f"No cloud price for {gpu.name} in the catalog; pass price_per_gpu_hour to get a cost.",
            zh=f"目录中没有 {gpu.name} 的云上价格，请提供 price_per_gpu_hour 以计算费用。",
        ))  # fmt: skip

    mfu_label = "given" if row is None else f"table row '{row.gpu_class}', {row.min_gpus}–{row.max_gpus or '∞'} GPUs"
    if row is not None and request.precision == "fp8":
        mfu_label += f", × {FP8_MFU_FACTOR} for FP8"
    items = [
        LineItem(key="training_flops", label=Text(en="Training compute", zh="训练计算量"), value=flops, unit="FLOP",
                 formula=f"{k:g} × {params_b:g}e9 params × {_sci(request.tokens)} tokens = {_sci(flops)} FLOP"),
        LineItem(key="mfu", label=Text(en="Model FLOPs utilisation", zh="模型算力利用率 (MFU)"), value=mfu, unit="fraction",
                 formula=f"MFU = {mfu:.3g} ({mfu_label})"),
        LineItem(key="sustained_tflops", label=Text(en="Sustained TFLOPS per GPU", zh="每卡实际算力"), value=peak * mfu, unit="TFLOPS",
                 formula=f"{peak:g} TFLOPS dense {request.precision} × {mfu:.3g} = {peak * mfu:.4g} TFLOPS"),
        LineItem(key="gpu_hours", label=Text(en="GPU-hours", zh="GPU 小时（卡时）"), value=gpu_hours, unit="GPU-hours",
                 formula=f"{_sci(flops)} FLOP / ({peak * mfu:.4g}e12 FLOP/s × 3600) = {gpu_hours:,.0f} GPU-h"),
        LineItem(key="wall_clock_days", label=Text(en="Wall-clock time", zh="训练时长"), value=days, unit="days",
                 formula=f"{gpu_hours:,.0f} GPU-h / {num_gpus:,} GPUs / 24 = {days:,.2f} days"),
    ]  # fmt: skip
    if energy is not None:
        items.append(LineItem(key="energy", label=Text(en="Energy (GPU boards × PUE)", zh="耗电量（GPU 板卡功耗 × PUE）"), value=energy, unit="kWh",
                              formula=f"{gpu.tdp_w:g} W × {gpu_hours:,.0f} GPU-h × PUE {request.pue:g} = {energy:,.0f} kWh"))  # fmt: skip
    if cost is not None:
        items.append(LineItem(key="cost", label=Text(en="GPU rental cost", zh="租卡费用"), value=cost, unit=currency,
                              formula=f"{gpu_hours:,.0f} GPU-h × {money(price, currency)}/GPU-h ({price_note}) = {money(cost, currency)}"))  # fmt: skip
    meets = None if request.deadline_days is None else days <= request.deadline_days + 1e-9
    if meets is False:
        warnings.append(Text(
            en=f"{num_gpus:,} GPUs need {days:,.1f} days, past the {request.deadline_days:g}-day deadline.",
            zh=f"{num_gpus:,} 张卡需要 {days:,.1f} 天，超出 {request.deadline_days:g} 天的期限。",
        ))  # fmt: skip

    return TrainingTimeResult(
        model_id=model_id, params_b=params_b, tokens=request.tokens, gpu_id=gpu.id, num_gpus=num_gpus,
        gpus_derived_from_deadline=derived, precision=request.precision, recompute=request.recompute,
        peak_tflops=peak, mfu=mfu, mfu_source="user" if row is None else "default", mfu_row=row, mfu_table=MFU_TABLE,
        total_flops=flops, gpu_hours=gpu_hours, wall_clock_days=days, energy_kwh=energy, cost=cost, currency=currency,
        price_per_gpu_hour=price, deadline_days=request.deadline_days, meets_deadline=meets, items=items, warnings=warnings,
    )  # fmt: skip
