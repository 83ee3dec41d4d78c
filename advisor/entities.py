"""Read a chat message (中文, English or both) into typed facts the offline planner can pass to tools.

``extract(text, catalog)`` finds catalog models and GPUs, model sizes, token counts, GPU and
server counts, precision, workload, prices, usage hours, deadlines and region. Numbers are
floats in base units: parameters, tokens, hours, money with its currency code. Nothing here
raises: empty, huge, emoji-only or binary-looking text gives an (almost) empty ``Entities``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from advisor.contract import Language
from advisor.entity_patterns import (
    GENERIC_WORKLOADS,
    GPU_HINTS,
    LLAMA_CPP_LEVEL,
    PRECISIONS,
    QUANTIZATION,
    REGIONS,
    TECHNIQUES,
    WORKLOADS,
    labels_in,
    term,
)
from advisor.intents import find_cues
from advisor.language import LanguageInfo, analyze_language
from advisor.name_matcher import NameMatch, matcher_for, normalize_text
from advisor.number_roles import GPU_MARK, MODEL_MARK, Per, Reading, read_numbers
from knowledge.catalog import Catalog

Precision = Literal["fp32", "fp16", "bf16", "fp8", "fp4", "int8", "int4"]
Workload = Literal["inference", "lora", "qlora", "full_finetune", "finetune", "pretrain", "train"]
# Long messages are pasted logs or documents. Log lines are dropped ("Tried to allocate 2.00 GiB"
# is not the user's figure; the troubleshooting tool reads the full log itself), and of what is
# left only the start and the end are read, where the question sits.
EDGE_CHARS = 1500
MAX_LOG_LINE = 2000  # longer "lines" are prose pasted without line breaks, never log lines

COUNT_WORDS = {
    "one": 1, "single": 1, "a single": 1, "two": 2, "dual": 2, "a pair of": 2, "three": 3, "four": 4, "quad": 4,
    "five": 5, "six": 6, "eight": 8, "ten": 10, "twelve": 12, "sixteen": 16, "thirty-two": 32, "sixty-four": 64,
    "单": 1, "双": 2,
}  # fmt: skip
_WORDS = "|".join(sorted((w.replace(" ", r"\s+") for w in COUNT_WORDS if w.isascii()), key=len, reverse=True))
COUNT_PHRASE = re.compile(
    rf"(?:{term(rf'(?P<en>{_WORDS})')}|(?P<cn>单|双))\s*(?:x\s*|张|块)?(?:(?P<gpu>卡|显卡|gpus?(?![a-z])|cards?(?![a-z])|{GPU_MARK})|(?P<server>台|机|节点|服务器|servers?(?![a-z])|nodes?(?![a-z])|machines?(?![a-z])|boxes))"
)
ALWAYS_ON = re.compile(r"24\s*/\s*7|7\s*[x×*]\s*24|全天候|全天(?:运行|跑)|不间断|" + term(r"around\s+the\s+clock|non[\s-]?stop"))
# Lines of a pasted log or traceback: their numbers (ranks, byte counts, times) are not the user's figures.
LOG_LINE = re.compile(r"\d{2}:\d{2}:\d{2}|traceback|^\s*file \"|\w(?:error|exception):|nccl (?:warn|info)|xid\s*:?\s*\d|^\s*\[(?:rank|\d)|^\s+at ")
HALF_PERIODS = {"半年": 4380.0, "半个月": 365.0, "half a year": 4380.0, "half a month": 365.0}
HALF_PERIOD = re.compile("|".join(HALF_PERIODS))


class Money(BaseModel):
    """An amount of money as typed, with what it is per."""

    amount: float = Field(description="Amount in `currency` (not converted).")
    currency: Literal["USD", "CNY"]
    per: Per = Field("once", description="once (a lump sum or budget), hour, gpu_hour, month, year or kwh.")
    currency_assumed: bool = Field(False, description="True when no currency was written and it was taken from the message language.")


class Entities(BaseModel):
    """Everything the planner can use from one message; None/[] means 'not mentioned'."""

    language: Language = Field(description="Language to answer in.")
    language_info: LanguageInfo
    models: list[str] = Field(default_factory=list, description="Catalog model ids, in order of mention.")
    gpus: list[str] = Field(default_factory=list, description="Catalog GPU ids, in order of mention.")
    gpu_hints: list[str] = Field(default_factory=list, description="Vague GPU references, e.g. 'series:h' for 'H卡', 'vendor:amd'.")
    params: float | None = Field(None, description="First model size written as a number, in parameters (7e9).")
    param_sizes: list[float] = Field(default_factory=list, description="Every model size written as a number.")
    tokens: float | None = Field(None, description="Training-data size in tokens.")
    gpu_count: int | None = Field(None, description="Total GPUs (servers × GPUs per server when both are given).")
    servers: int | None = Field(None, description="Number of servers/nodes.")
    gpus_per_server: int | None = None
    gpu_memory_gb: float | None = Field(None, description="GPU memory the user mentions having or needing, GB.")
    precisions: list[Precision] = Field(default_factory=list)
    quantization: list[str] = Field(default_factory=list, description="Quantisation formats: gptq, awq, gguf, q4_k_m, ...")
    workloads: list[Workload] = Field(default_factory=list, description="Most specific workloads mentioned, in order.")
    techniques: list[str] = Field(default_factory=list, description="zero-3, fsdp, offload, activation-checkpointing, ...")
    context_length: int | None = Field(None, description="Sequence/context length in tokens ('32k' = 32768).")
    batch_size: int | None = None
    money: list[Money] = Field(default_factory=list, description="Every amount of money except power prices.")
    budget: Money | None = Field(None, description="First lump-sum amount (a budget or purchase price).")
    hourly_price: Money | None = Field(None, description="First price per hour or per GPU-hour.")
    power_price: Money | None = Field(None, description="Electricity price per kWh.")
    hours_per_day: float | None = None
    hours_per_month: float | None = None
    utilisation: float | None = Field(None, description="Utilisation as a fraction 0-1.")
    gpu_hours: float | None = None
    duration_hours: float | None = Field(None, description="A time span or deadline ('3个月内', 'in 2 weeks'), hours.")
    region: Literal["cn", "global"] | None = Field(None, description="'cn' for mainland China (国内), 'global' for overseas.")
    intent_cues: dict[str, list[str]] = Field(default_factory=dict, description="Cue phrases found per intent.")


def extract(text: str, catalog: Catalog) -> Entities:
    """Every entity in ``text``; never raises for any string."""
    text = _focus(text if isinstance(text, str) else "")
    info = analyze_language(text)
    normalized = normalize_text(text)
    names = _names(text, normalized, catalog)
    masked = _mask(normalized, names)
    # Gibberish or binary pasted as text has no figures worth reading, only accidental "2T"s.
    quantities = "" if "nonsense" in info.flags else _without_log_lines(masked)
    readings = sorted(read_numbers(quantities, info.language) + _count_words(quantities), key=lambda r: r.start)
    entities = Entities(
        language=info.language,
        language_info=info,
        models=_unique(n.id for n in names if n.kind == "model"),
        gpus=_unique(n.id for n in names if n.kind == "gpu"),
        gpu_hints=labels_in(masked, GPU_HINTS),
        precisions=labels_in(masked, PRECISIONS),
        quantization=_quantization(masked),
        workloads=_workloads(masked),
        techniques=labels_in(masked, TECHNIQUES),
        region=next(iter(labels_in(masked, REGIONS)), None),
        intent_cues=find_cues(masked),
    )
    _apply_readings(entities, readings)
    _apply_phrases(entities, masked)
    return entities


def _focus(text: str) -> str:
    """A long message without its log lines, then its first and last ``EDGE_CHARS`` characters."""
    if len(text) <= 2 * EDGE_CHARS:
        return text
    human = "\n".join(line for line in text.splitlines() if len(line) > MAX_LOG_LINE or not LOG_LINE.search(line.lower()))
    kept = human if human.strip() else text  # a bare log still has a language and cues
    return kept if len(kept) <= 2 * EDGE_CHARS else kept[:EDGE_CHARS] + "\n" + kept[-EDGE_CHARS:]


def _names(text: str, normalized: str, catalog: Catalog) -> list[NameMatch]:
    """Names scanned from the text; failing that, an exact catalog lookup of the whole message."""
    found = matcher_for(catalog).scan(normalized)
    stripped = text.strip()
    if found or not 0 < len(stripped) <= 64:
        return found
    model, gpu = catalog.find_model(stripped), catalog.find_gpu(stripped)
    if model is not None:
        return [NameMatch(0, len(normalized), "model", model.id)]
    return [NameMatch(0, len(normalized), "gpu", gpu.id)] if gpu is not None else []


def _mask(text: str, names: list[NameMatch]) -> str:
    """Replace names by marker characters of the same length, so their digits are not read as numbers."""
    parts, position = [], 0
    for name in names:
        parts += [text[position : name.start], (GPU_MARK if name.kind == "gpu" else MODEL_MARK) * (name.end - name.start)]
        position = name.end
    return "".join(parts) + text[position:]


def _without_log_lines(masked: str) -> str:
    """Blank out log lines (same length) in multi-line messages; the user's own lines stay."""
    if masked.count("\n") < 2:
        return masked
    return "\n".join(" " * len(line) if LOG_LINE.search(line) else line for line in masked.split("\n"))


def _count_words(masked: str) -> list[Reading]:
    """Counts written as words: "单卡", "双机", "two A100s", "a single GPU"."""
    readings: list[Reading] = []
    for match in COUNT_PHRASE.finditer(masked):
        word = re.sub(r"\s+", " ", match["en"] or match["cn"])
        role = "gpu_count" if match["gpu"] else "servers"
        readings.append(Reading(role, float(COUNT_WORDS[word]), match.start()))
    return readings


def _apply_readings(entities: Entities, readings: list[Reading]) -> None:
    first: dict[str, Reading] = {}
    for reading in readings:
        first.setdefault(reading.role, reading)
        if reading.role == "params" and reading.value not in entities.param_sizes:
            entities.param_sizes.append(reading.value)
        elif reading.role in ("money", "power_price"):
            money = Money(amount=reading.value, currency=reading.currency or "USD", per=reading.per, currency_assumed=reading.currency_assumed)
            if reading.role == "power_price":
                entities.power_price = entities.power_price or money
                continue
            entities.money.append(money)
            if money.per == "once":
                entities.budget = entities.budget or money
            elif money.per in ("hour", "gpu_hour"):
                entities.hourly_price = entities.hourly_price or money
    entities.params = entities.param_sizes[0] if entities.param_sizes else None
    for role, field in (("tokens", "tokens"), ("memory_gb", "gpu_memory_gb"), ("hours_per_day", "hours_per_day"),
                        ("hours_per_month", "hours_per_month"), ("utilisation", "utilisation"), ("gpu_hours", "gpu_hours"),
                        ("duration_hours", "duration_hours")):  # fmt: skip
        if role in first:
            setattr(entities, field, first[role].value)
    for role, field in (("context", "context_length"), ("batch", "batch_size")):
        if role in first:
            setattr(entities, field, int(first[role].value))
    _apply_counts(entities, [r for r in readings if r.role == "gpu_count"], first.get("servers"))


def _apply_counts(entities: Entities, counts: list[Reading], servers: Reading | None) -> None:
    """'两台8卡' → 2 servers × 8 = 16 GPUs; '2台服务器每台8卡，共16卡' → 16 GPUs, 8 per server."""
    total = next((int(r.value) for r in counts if r.scope == "total"), None)
    per_server = next((int(r.value) for r in counts if r.scope == "per_server"), None)
    unscoped = next((int(r.value) for r in counts if not r.scope), None)
    if servers is None:
        entities.gpus_per_server = per_server
        entities.gpu_count = total or per_server or unscoped
        return
    machines = entities.servers = int(servers.value)
    per_server = per_server or (None if total else unscoped)  # "两台8卡": a bare count next to servers is per server
    entities.gpus_per_server = per_server or (total // machines if total and total % machines == 0 else None)
    entities.gpu_count = total or (per_server * machines if per_server else None)


def _apply_phrases(entities: Entities, masked: str) -> None:
    """Quantities written without digits."""
    if entities.hours_per_day is None and ALWAYS_ON.search(masked):
        entities.hours_per_day = 24.0
    if entities.duration_hours is None and (half := HALF_PERIOD.search(masked)):
        entities.duration_hours = HALF_PERIODS[half.group()]


def _quantization(masked: str) -> list[str]:
    labels = labels_in(masked, QUANTIZATION)
    return labels + _unique(m.group() for m in LLAMA_CPP_LEVEL.finditer(masked))


def _workloads(masked: str) -> list[Workload]:
    labels = labels_in(masked, WORKLOADS)
    return [w for w in labels if not GENERIC_WORKLOADS.get(w, set()) & set(labels)]  # type: ignore[misc]


def _unique(items) -> list:
    return list(dict.fromkeys(items))
