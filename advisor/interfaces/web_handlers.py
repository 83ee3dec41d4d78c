"""Calculator-tab handlers: form values → registry call → (chart, Markdown). Errors come back as text.

Every handler takes the registry and the UI language first so ``web_calculators`` can bind them with
``functools.partial``; none re-implements a tool, they only collect arguments and render results.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import plotly.graph_objects as go
from pydantic import BaseModel

from advisor.interfaces.charts import memory_figure, serving_figure, tco_figure
from advisor.interfaces.door_text import TEXT
from advisor.interfaces.ui_text import t
from advisor.interfaces.web_results import (
    CATALOG_COLUMNS,
    RECOMMEND_COLUMNS,
    catalog_rows,
    diagnosis_markdown,
    memory_markdown,
    recommendation_table,
    serving_markdown,
    tco_markdown,
    training_markdown,
)
from advisor.labels import CURRENCY, ENGINE, METHOD, MODE, OBJECTIVE, TASK, ZERO_STAGE, enum_label, pick
from advisor.registry import Registry
from knowledge.bilingual import AdvisorError

log = logging.getLogger(__name__)

Table = dict[str, Any]  # gr.Dataframe value: {"headers": [...], "data": [[...]]}


def error_text(message: str) -> str:
    return f"⚠️ {message}"


# Request fields the forms show, as the ``ui_text`` key of the control: suggestions that name a field
# ('deadline_days', 'method=qlora') are shown as the control's label, never as the field name.
FIELD_TEXT = {
    "gpu": "gpu", "num_gpus": "num_gpus", "deadline_days": "deadline", "tokens": "tokens", "model": "model", "params_b": "model",
    "price_per_gpu_hour": "cloud_price", "cloud_price_per_gpu_hour": "cloud_price", "server_price": "server_price",
    "utilisation_pct": "utilisation", "method": "method", "precision": "precision", "tp": "tp", "mode": "mode", "mfu": "mfu",
    "zero_stage": "zero_stage", "batch": "batch", "context": "context", "budget": "budget", "max_gpus": "max_gpus",
    "servers": "servers", "gpus_per_server": "gpus_per_server", "lifetime_years": "lifetime", "currency": "currency",
    "engine": "engine", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "objective": "objective",
    "target_ttft_ms": "target_ttft", "target_tokens_per_s_per_user": "target_speed",
}  # fmt: skip
VALUE_LABELS = {"method": METHOD, "mode": MODE, "task": TASK, "zero_stage": ZERO_STAGE, "currency": CURRENCY, "engine": ENGINE,
                "objective": OBJECTIVE}  # fmt: skip
CURVE_POINTS = 48  # estimates behind the throughput chart (each takes about a millisecond)
CURVE_MAX_BATCH = 512
IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*(=.*)?$")


def _suggestion(text: str, language: str) -> str | None:
    """A suggestion as people read it: a field becomes its form label, anything else field-like is dropped."""
    field, _, value = text.partition("=")
    if field in FIELD_TEXT:
        name = t(FIELD_TEXT[field], language)
        if not value:
            return name
        shown = enum_label(VALUE_LABELS.get(field, {}), int(value) if value.isdigit() and field == "zero_stage" else value, language)
        return f"{name}{pick(language, ': ', '：')}{shown}"
    return None if "_" in text or "=" in text else text


def error_message(exc: AdvisorError, language: str) -> str:
    """The tool's explanation in ``language``, with its suggestions in the form's own words."""
    fields = [s for s in exc.suggestions if IDENTIFIER.match(s) and s.partition("=")[0] in FIELD_TEXT]
    if not fields:
        names = [s for s in exc.suggestions if _suggestion(s, language) is not None]
        return AdvisorError(exc.code, exc.en, exc.zh, names).message(language)
    shown = [s for s in (_suggestion(s, language) for s in exc.suggestions) if s]
    return pick(language, exc.en, exc.zh) + TEXT.pick("try_changing", language) + TEXT.pick("list_separator", language).join(shown)


def _given(args: dict[str, Any]) -> dict[str, Any]:
    """Drop empty form fields so the tool's own defaults apply (its defaults are documented on the model)."""
    stripped = {k: v.strip() if isinstance(v, str) else v for k, v in args.items()}
    return {k: v for k, v in stripped.items() if v is not None and v != ""}


def optional(value: float | None) -> float | None:
    """Browsers show an empty number box as 0; every optional figure in the forms must be > 0, so 0 means 'default'."""
    return value or None


def run_tool(registry: Registry, name: str, args: dict[str, Any], language: str) -> tuple[BaseModel | None, str]:
    """The tool's result, or ``None`` and a friendly message in ``language``; never raises."""
    try:
        return registry.run(name, _given(args)), ""
    except AdvisorError as exc:
        return None, error_text(error_message(exc, language))
    except Exception:  # a bug in a tool must not show a traceback in the page; the log keeps it
        log.exception("calculator %s failed", name)
        return None, error_text(t("unexpected_error", language))


def memory_calc(
    registry: Registry, language: str, model: str, mode: str, method: str, precision: str,
    batch: float | None, context: float | None, gpu: str, num_gpus: float | None, tp: float | None, zero_stage: float | None,
) -> tuple[go.Figure | None, str]:  # fmt: skip
    args = {"model": model, "mode": mode, "precision": precision, "batch": batch, "context": context, "gpu": gpu,
            "num_gpus": num_gpus, "tp": tp}  # fmt: skip
    if mode == "training":  # training-only settings; an inference estimate ignores them, so do not send them
        args |= {"method": method, "zero_stage": zero_stage}
    result, error = run_tool(registry, "estimate_memory", args, language)
    if result is None:
        return None, error
    return memory_figure(result, language), memory_markdown(result, language)


def tco_calc(
    registry: Registry, language: str, gpu: str, servers: float | None, gpus_per_server: float | None,
    utilisation_pct: float | None, lifetime_years: float | None, currency: str,
    server_price: float | None, cloud_price: float | None,
) -> tuple[go.Figure | None, str]:  # fmt: skip
    args = {"gpu": gpu, "servers": servers, "gpus_per_server": gpus_per_server, "utilisation_pct": utilisation_pct,
            "lifetime_years": lifetime_years, "currency": currency, "server_price": optional(server_price),
            "cloud_price_per_gpu_hour": optional(cloud_price)}  # fmt: skip
    result, error = run_tool(registry, "compute_tco", args, language)
    if result is None:
        return None, error
    return tco_figure(result, language), tco_markdown(result, language)


def training_calc(
    registry: Registry, language: str, model: str, tokens: str, gpu: str, num_gpus: float | None,
    deadline_days: float | None, precision: str, mfu: float | None, price_per_gpu_hour: float | None = None,
) -> str:  # fmt: skip
    args = {"model": model, "tokens": tokens, "gpu": gpu, "num_gpus": num_gpus, "deadline_days": optional(deadline_days),
            "precision": precision, "mfu": optional(mfu), "price_per_gpu_hour": optional(price_per_gpu_hour)}  # fmt: skip
    result, error = run_tool(registry, "estimate_training_time", args, language)
    return error if result is None else training_markdown(result, language)


def troubleshoot_calc(registry: Registry, language: str, text: str) -> str:
    result, error = run_tool(registry, "diagnose", {"text": text, "language": language}, language)
    return error if result is None else diagnosis_markdown(result, language)


def catalog_calc(
    registry: Registry, language: str, vendor: str, segment: str, min_memory_gb: float | None, china_mainland: bool
) -> tuple[Table, str]:
    args = {"vendor": vendor, "segment": segment, "min_memory_gb": min_memory_gb, "china_mainland": china_mainland}
    result, error = run_tool(registry, "list_gpus", args, language)
    rows = catalog_rows(result.gpus, language) if result is not None else []
    return {"headers": CATALOG_COLUMNS[language], "data": rows}, error


def serving_calc(
    registry: Registry, language: str, model: str, gpu: str, num_gpus: float | None, tp: float | None, engine: str,
    precision: str, prompt_tokens: float | None, output_tokens: float | None, batch: float | None,
    target_tokens_per_s: float | None = None, target_ttft_ms: float | None = None,
) -> tuple[go.Figure | None, str]:  # fmt: skip
    """The estimate at the requested concurrency, and the same setup at 1…max concurrency for the chart."""
    args = {"model": model, "gpu": gpu, "num_gpus": optional(num_gpus), "tp": optional(tp), "engine": engine, "precision": precision,
            "prompt_tokens": prompt_tokens, "output_tokens": output_tokens, "batch": batch,
            "target_tokens_per_s_per_user": optional(target_tokens_per_s), "target_ttft_ms": optional(target_ttft_ms)}  # fmt: skip
    result, error = run_tool(registry, "estimate_throughput", args, language)
    if result is None:
        return None, error
    curve = []
    for point in curve_batches(result.max_batch_fits, result.batch):
        try:
            curve.append(registry.run("estimate_throughput", _given({**args, "batch": point})))
        except AdvisorError:  # a point the estimator refuses is left out of the line, not shown as an error
            continue
    figure = serving_figure(curve, result, language, args["target_tokens_per_s_per_user"], args["target_ttft_ms"])
    return figure, serving_markdown(result, language)


def curve_batches(max_fits: int, requested: int) -> list[int]:
    """Concurrency 1…max (what fits in memory, or the request if larger): every value when few, else spread evenly on a log scale."""
    top = max(1, min(max(max_fits, requested), CURVE_MAX_BATCH))
    if top <= CURVE_POINTS:
        points = set(range(1, top + 1))
    else:
        points = {round(top ** (i / (CURVE_POINTS - 1))) for i in range(CURVE_POINTS)}
    return sorted(points | ({requested} if requested <= CURVE_MAX_BATCH else set()))


def recommend_calc(
    registry: Registry, language: str, model: str, task: str, precision: str, context: float | None,
    batch: float | None, budget: float | None, currency: str, china_only: bool, max_gpus: float | None,
    objective: str = "cheapest",
) -> tuple[Table, str]:  # fmt: skip
    args = {"model": model, "task": task, "precision": precision, "context": context, "batch": batch,
            "budget": optional(budget), "currency": currency, "region": "cn" if china_only else "global", "max_gpus": max_gpus,
            "objective": objective}  # fmt: skip
    result, error = run_tool(registry, "recommend_gpus", args, language)
    if result is None:
        return {"headers": RECOMMEND_COLUMNS[language], "data": []}, error
    headers, rows, summary = recommendation_table(result, language)
    return {"headers": headers, "data": rows}, summary
