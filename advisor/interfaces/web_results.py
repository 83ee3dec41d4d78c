"""Markdown and table renderings of tool results for the calculator tabs, in the UI language.

Every word shown comes from the tool's bilingual fields (``Text`` labels, ``formula_zh``, ``model_label``,
``plan_label``) or from ``advisor.labels``; machine values (ids, enum values, field names) are never shown.
Numbers and their units are joined by a no-break space so a table cell never wraps inside a figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from advisor.labels import BOUND, CHINA_STATUS, CURRENCY, ENGINE, MFU_SOURCE, SEGMENT, TASK, VERDICT, enum_label, label, pick, unit
from advisor.markdown import bullet_list, number, table
from knowledge.bilingual import Text
from knowledge.gpus import GPU
from knowledge.wording import Wording
from tools.common import LineItem
from tools.cost.money import SYMBOLS, money
from tools.cost.tco import TcoResult
from tools.cost.training_time import TrainingTimeResult
from tools.memory.schema import MemoryEstimate
from tools.recommend import Recommendation
from tools.serving.schema import ThroughputResult
from tools.troubleshoot.diagnose import Diagnosis

NBSP = "\u00a0"
TEXT = Wording(Path(__file__).with_name("web_results_text.yaml"))


def readable(value: float) -> str:
    """Readable value: huge counts such as training FLOPs in scientific form, tiny ones not rounded to 0."""
    if abs(value) >= 1e9:
        return f"{value:.3e}"
    return f"{value:.2g}" if 0 < abs(value) < 0.1 else number(value, 2)


def keep_together(text: str) -> str:
    """No line break inside a figure: its spaces become no-break spaces."""
    return text.replace(" ", NBSP)


def value_text(item: LineItem, language: str) -> str:
    """'16.06 GB', '$316,250', '16.25 months', '$2.83/GPU-hour', '24.67%' — in the language, never wrapping."""
    code = item.unit
    if code in SYMBOLS:
        return keep_together(money(item.value, code))
    if code.endswith("/GPU-hour") and code.split("/")[0] in SYMBOLS:
        return keep_together(money(item.value, code.split("/")[0]) + "/" + TEXT.pick("gpu_hour", language))
    if code == "%":
        return keep_together(f"{readable(item.value)}%")
    shown = unit(code, language)
    return keep_together(f"{readable(item.value)} {shown}".strip())


def items_table(items: Sequence[LineItem], language: str) -> str:
    headers = tuple(TEXT.entry("items_headers")[language])
    return table(headers, [(i.label.pick(language), value_text(i, language), f"`{i.formula_in(language)}`") for i in items])


def footnote(text: Text, language: str) -> str:
    return f"<sub>{TEXT.pick('note', language)}{text.pick(language)}</sub>"


def _texts(texts: Sequence[Text], language: str) -> str:
    return bullet_list([text.pick(language) for text in texts])


def gb(value: float, digits: int = 1) -> str:
    return keep_together(f"{number(value, digits)} GB")


def memory_markdown(estimate: MemoryEstimate, language: str) -> str:
    def say(key: str, **values: object) -> str:
        return TEXT.pick(f"memory.{key}", language, **values)

    parts = [say("head", name=estimate.model_label.pick(language), total=gb(estimate.total_per_gpu_gb))]
    if estimate.num_gpus > 1:
        split = f"TP {estimate.tp} × PP {estimate.pp} × DP {estimate.dp}"
        parts.append(say("split", count=estimate.num_gpus, split=split, total=gb(estimate.total_all_gpus_gb)))
    if estimate.verdict and estimate.capacity:
        room = f"{number(estimate.headroom_pct or 0, 1)}%"
        capacity = TEXT.pick("label_value", language, label=estimate.capacity.label.pick(language), value=gb(estimate.capacity.value))
        parts.append(f"**{label(VERDICT[estimate.verdict], language)}** — {capacity}" + say("headroom", room=room))
    if estimate.main_lever:
        parts.append(say("main_lever") + estimate.main_lever.pick(language))
    if estimate.kv_cache_tokens is not None:
        concurrency = number(estimate.max_concurrency or 0, 1)
        parts.append(say("kv_room", tokens=f"{estimate.kv_cache_tokens:,}", sequences=concurrency))
    parts.append(items_table(estimate.items, language) + "\n\n" + footnote(estimate.unit_note, language))
    parts.append(_texts(estimate.notes + estimate.assumptions, language))
    return "\n\n".join(p for p in parts if p)


def serving_markdown(result: ThroughputResult, language: str) -> str:
    """The speeds a user sees, what limits them, and every step of the arithmetic."""
    def say(key: str, **values: object) -> str:
        return TEXT.pick(f"serving.{key}", language, **values)

    user, total = number(result.tokens_per_s_per_user_streaming, 1), number(result.output_tokens_per_s_total, 1)
    ttft, engine = number(result.ttft_ms, 0), enum_label(ENGINE, result.engine, language)
    split = f"TP={result.tp}" + (f" × {result.replicas}" if result.replicas > 1 else "")
    speed = keep_together(say("speed", speed=user))
    lines = [say("head", name=result.model_label.pick(language), count=result.num_gpus, gpu=result.gpu, engine=engine, split=split, speed=speed)]
    lines.append(say("total", total=total, batch=result.effective_batch, ttft=ttft))
    lines.append(say("bound", bound=enum_label(BOUND, result.bound, language), fits=f"{result.max_batch_fits:,}"))
    if result.max_concurrency_at_target is not None:
        lines.append(say("most_at_target", most=f"{result.max_concurrency_at_target:,}"))
    lines.append(items_table(result.lines, language))
    lines.append(_texts(result.notes + result.assumptions, language))
    return "\n\n".join(p for p in lines if p)


def tco_markdown(result: TcoResult, language: str) -> str:
    def say(key: str, **values: object) -> str:
        return TEXT.pick(f"tco.{key}", language, **values)

    c, months = result.currency, result.horizon_months
    if result.saving_from_owning >= 0:
        verdict = say("buying_saves", amount=money(result.saving_from_owning, c), months=months)
    else:
        verdict = say("renting_saves", amount=money(-result.saving_from_owning, c), months=months)
    if result.break_even_month is not None:
        verdict += say("break_even_month", month=result.break_even_month)
    verdict += say("break_even_use", rate=number(result.break_even_utilisation_pct, 1))
    sensitivity = say("sensitivity") + "\n" + _texts(result.sensitivities, language)
    return "\n\n".join([f"### {verdict}", items_table(result.items, language), sensitivity, result.power_reminder.pick(language)])


def training_markdown(result: TrainingTimeResult, language: str) -> str:
    def say(key: str, **values: object) -> str:
        return TEXT.pick(f"training.{key}", language, **values)

    days, years = number(result.wall_clock_days, 1), number(result.wall_clock_days / 365, 1)
    head = say("head", days=days, count=result.num_gpus, gpu=result.gpu_name)
    if result.wall_clock_days > 365:  # a multi-year answer is the point; say it in years too
        head += say("years", years=years)
    if result.meets_deadline is not None:
        head += f" — {say('meets' if result.meets_deadline else 'misses')}"
    mfu = say("mfu", mfu=number(result.mfu * 100, 1), source=enum_label(MFU_SOURCE, result.mfu_source, language))
    return "\n\n".join(p for p in [head, mfu, items_table(result.items, language), _texts(result.warnings, language)] if p)


def diagnosis_markdown(result: Diagnosis, language: str) -> str:
    def say(key: str, **values: object) -> str:
        return TEXT.pick(f"diagnosis.{key}", language, **values)

    if not result.findings:
        return _texts(result.notes, language) or say("nothing")
    blocks = []
    for rank, finding in enumerate(result.findings, 1):
        lines = [f"### {rank}. {finding.title.pick(language)} ({number(finding.score * 100, 0)}%)"]
        evidence = {e.line: e.excerpt for e in finding.evidence}  # a line matched by parser and pattern shows once
        lines += [f"> {say('line', line=line)}`{excerpt}`" for line, excerpt in list(evidence.items())[:3]]
        lines.append(say("causes") + "\n" + _texts(finding.causes, language))
        actions = [pick(language, a.en, a.zh) + (f" — `{a.command}`" if a.command else "") for a in finding.actions]
        lines.append(say("actions") + "\n" + bullet_list(actions))
        blocks.append("\n\n".join(lines))
    return "\n\n".join(blocks + [_texts(result.notes, language)])


CATALOG_COLUMNS: dict[str, list[str]] = TEXT.data["catalog_columns"]


def catalog_rows(gpus: Sequence[GPU], language: str) -> list[list]:
    """One row per GPU; numbers stay numbers so the table sorts numerically."""
    return [
        [g.name, g.vendor, enum_label(SEGMENT, g.segment, language), g.memory_gb, g.bandwidth_gbs, g.bf16_tflops, g.fp8_tflops,
         g.tdp_w, label(CHINA_STATUS[g.china], language), g.launch_year]
        for g in gpus
    ]  # fmt: skip


RECOMMEND_COLUMNS: dict[str, list[str]] = TEXT.data["recommend_columns"]


def recommendation_table(result: Recommendation, language: str) -> tuple[list[str], list[list], str]:
    """Headers, one sortable row per option (numbers kept numeric), and a Markdown summary above the table."""
    rows = [
        # the first reason restates the memory columns; the table shows the others
        [rank, o.config_label.pick(language), o.count, o.plan_label.pick(language), round(o.per_gpu_gb, 1), o.nominal_memory_gb,
         round(o.capacity_gb, 1), round(o.headroom_pct, 1), _rounded(o.purchase_cost, 0), _rounded(o.cloud_cost_per_hour, 2),
         _rounded(o.tokens_per_s_per_user, 1), _rounded(o.tokens_per_s_total, 0),
         TEXT.pick("list_separator", language).join(r.pick(language) for r in o.reasons[1:])]
        for rank, o in enumerate(result.options, 1)
    ]  # fmt: skip
    task, currency = enum_label(TASK, result.task, language), enum_label(CURRENCY, result.currency, language)
    head = TEXT.pick("recommend.head", language, model=result.model_label.pick(language), params=number(result.params_b, 1), task=task, currency=currency)
    if not result.options:
        head += "\n\n" + TEXT.pick("recommend.none_fit", language)
    summary = "\n\n".join(p for p in [head, _texts(result.notes + result.excluded, language), footnote(result.unit_note, language)] if p)
    symbol = SYMBOLS[result.currency]
    headers = [TEXT.pick("recommend.money_header", language, header=h, symbol=symbol) if i in (8, 9) else h
               for i, h in enumerate(RECOMMEND_COLUMNS[language])]  # fmt: skip
    return headers, rows, summary


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
