"""Markdown and table renderings of tool results for the calculator tabs, in the UI language."""

from __future__ import annotations

from collections.abc import Sequence

from advisor.agent.markdown import bullet_list, number, table
from advisor.labels import CHINA_STATUS, VERDICT, label, pick
from knowledge.bilingual import Text
from knowledge.gpus import GPU
from tools.common import LineItem
from tools.cost.money import money
from tools.cost.tco import TcoResult
from tools.cost.training_time import TrainingTimeResult
from tools.memory.schema import MemoryEstimate
from tools.recommend import Recommendation
from tools.troubleshoot.diagnose import Diagnosis


def readable(value: float) -> str:
    """Readable value: huge counts such as training FLOPs in scientific form, tiny ones not rounded to 0."""
    if abs(value) >= 1e9:
        return f"{value:.3e}"
    return f"{value:.2g}" if 0 < abs(value) < 0.1 else number(value, 2)


def items_table(items: Sequence[LineItem], language: str) -> str:
    headers = ("Item", "Value", "Formula") if language == "en" else ("项目", "数值", "计算公式")
    return table(headers, [(i.label.pick(language), f"{readable(i.value)} {i.unit}", f"`{i.formula}`") for i in items])


def _texts(texts: Sequence[Text], language: str) -> str:
    return bullet_list([text.pick(language) for text in texts])


def memory_markdown(estimate: MemoryEstimate, language: str) -> str:
    en = language == "en"
    head = f"### {estimate.model_name}: **{number(estimate.total_per_gpu_gb, 1)} GB** " + ("per GPU" if en else "/ 卡")
    parts = [head]
    if estimate.num_gpus > 1:
        parts.append(
            f"{estimate.num_gpus} GPUs (TP {estimate.tp} × PP {estimate.pp} × DP {estimate.dp}), "
            + ("all GPUs: " if en else "全部 GPU 合计：") + f"{number(estimate.total_all_gpus_gb, 1)} GB"
        )
    if estimate.verdict:
        verdict = f"**{label(VERDICT[estimate.verdict], language)}** — {estimate.gpu} {number(estimate.gpu_capacity_gb or 0, 0)} GB"
        if estimate.headroom_pct is not None:
            verdict += (", headroom " if en else "，余量 ") + f"{number(estimate.headroom_pct, 1)}%"
        parts.append(verdict)
    if estimate.main_lever:
        parts.append(("**Main lever:** " if en else "**首要调整：**") + estimate.main_lever.pick(language))
    if estimate.kv_cache_tokens is not None:
        parts.append(f"KV cache: {estimate.kv_cache_tokens:,} tokens" + (f", ~{number(estimate.max_concurrency or 0, 1)} × context" if estimate.max_concurrency else ""))
    parts.append(items_table(estimate.items, language))
    parts.append(_texts(estimate.notes + estimate.assumptions, language))
    return "\n\n".join(p for p in parts if p)


def tco_markdown(result: TcoResult, language: str) -> str:
    en, c = language == "en", result.currency
    if result.saving_from_owning >= 0:
        verdict = (f"Buying saves {money(result.saving_from_owning, c)} over {result.horizon_months} months."
                   if en else f"{result.horizon_months} 个月内自建比租用省 {money(result.saving_from_owning, c)}。")
    else:
        verdict = (f"Renting saves {money(-result.saving_from_owning, c)} over {result.horizon_months} months."
                   if en else f"{result.horizon_months} 个月内租用比自建省 {money(-result.saving_from_owning, c)}。")  # fmt: skip
    if result.break_even_month is not None:
        verdict += f" Break-even: month {result.break_even_month}." if en else f" 第 {result.break_even_month} 个月回本。"
    verdict += (f" Break-even utilisation {number(result.break_even_utilisation_pct, 1)}%."
                if en else f" 盈亏平衡利用率 {number(result.break_even_utilisation_pct, 1)}%。")  # fmt: skip
    sensitivity = ("**What moves the answer most**" if en else "**影响最大的假设**") + "\n" + _texts(result.sensitivities, language)
    return "\n\n".join([f"### {verdict}", items_table(result.items, language), sensitivity, result.power_reminder.pick(language)])


def training_markdown(result: TrainingTimeResult, language: str) -> str:
    en = language == "en"
    days, years = number(result.wall_clock_days, 1), number(result.wall_clock_days / 365, 1)
    head = (f"### ≈ {days} days on {result.num_gpus} × {result.gpu_id}" if en
            else f"### 约 {days} 天（{result.num_gpus} 张 {result.gpu_id}）")  # fmt: skip
    if result.wall_clock_days > 365:  # a multi-year answer is the point; say it in years too
        head += f" ≈ {years} years" if en else f"，约 {years} 年"
    if result.meets_deadline is not None:
        ok = ("meets the deadline" if en else "能按期完成") if result.meets_deadline else ("misses the deadline" if en else "无法按期完成")
        head += f" — {ok}"
    mfu = f"MFU {number(result.mfu * 100, 1)}% ({result.mfu_source})"
    return "\n\n".join(p for p in [head, mfu, items_table(result.items, language), _texts(result.warnings, language)] if p)


def diagnosis_markdown(result: Diagnosis, language: str) -> str:
    en = language == "en"
    if not result.findings:
        return _texts(result.notes, language) or ("No known problem matched." if en else "没有匹配到已知问题。")
    blocks = []
    for rank, finding in enumerate(result.findings, 1):
        lines = [f"### {rank}. {finding.title.pick(language)} ({number(finding.score * 100, 0)}%)"]
        evidence = {e.line: e.excerpt for e in finding.evidence}  # a line matched by parser and pattern shows once
        lines += [f"> L{line}: `{excerpt}`" for line, excerpt in list(evidence.items())[:3]]
        lines.append(("**Likely causes**" if en else "**可能原因**") + "\n" + _texts(finding.causes, language))
        actions = [pick(language, a.en, a.zh) + (f" — `{a.command}`" if a.command else "") for a in finding.actions]
        lines.append(("**What to do**" if en else "**处理建议**") + "\n" + bullet_list(actions))
        blocks.append("\n\n".join(lines))
    return "\n\n".join(blocks + [_texts(result.notes, language)])


CATALOG_COLUMNS = {
    "en": ["GPU", "Vendor", "Segment", "Memory (GB)", "Bandwidth (GB/s)", "BF16 TFLOPS", "FP8 TFLOPS", "TDP (W)", "China", "Year"],
    "zh": ["GPU", "厂商", "类别", "显存（GB）", "带宽（GB/s）", "BF16 TFLOPS", "FP8 TFLOPS", "功耗（W）", "国内", "年份"],
}


def catalog_rows(gpus: Sequence[GPU], language: str) -> list[list]:
    """One row per GPU; numbers stay numbers so the table sorts numerically."""
    return [
        [g.name, g.vendor, g.segment, g.memory_gb, g.bandwidth_gbs, g.bf16_tflops, g.fp8_tflops, g.tdp_w,
         label(CHINA_STATUS[g.china], language), g.launch_year]
        for g in gpus
    ]  # fmt: skip


RECOMMEND_COLUMNS = {
    "en": ["#", "GPU", "Count", "Plan", "GB per GPU", "Capacity (GB)", "Headroom %", "Purchase", "Cloud per hour", "Why"],
    "zh": ["#", "GPU", "数量", "并行方案", "单卡显存（GB）", "容量（GB）", "余量 %", "采购价", "云上每小时", "理由"],
}


def recommendation_table(result: Recommendation, language: str) -> tuple[list[str], list[list], str]:
    """Headers, one sortable row per option (numbers kept numeric), and a Markdown summary under the table."""
    rows = [
        [rank, o.gpu_name, o.count, o.plan, round(o.per_gpu_gb, 1), round(o.capacity_gb, 1), round(o.headroom_pct, 1),
         _rounded(o.purchase_cost, 0), _rounded(o.cloud_cost_per_hour, 2), " ".join(r.pick(language) for r in o.reasons)]
        for rank, o in enumerate(result.options, 1)
    ]  # fmt: skip
    head = f"### {result.model_name} ({number(result.params_b, 1)}B) · {result.task} · {result.currency}"
    if not result.options:
        head += "\n\n" + ("No catalog GPU fits within the limits given." if language == "en" else "在给定条件下没有合适的 GPU。")
    summary = "\n\n".join(p for p in [head, _texts(result.notes + result.excluded, language)] if p)
    headers = [f"{h} ({result.currency})" if i in (7, 8) else h for i, h in enumerate(RECOMMEND_COLUMNS[language])]
    return headers, rows, summary


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
