"""Markdown and table renderings of tool results for the calculator tabs, in the UI language.

Every word shown comes from the tool's bilingual fields (``Text`` labels, ``formula_zh``, ``model_label``,
``plan_label``) or from ``advisor.labels``; machine values (ids, enum values, field names) are never shown.
Numbers and their units are joined by a no-break space so a table cell never wraps inside a figure.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.labels import BOUND, CHINA_STATUS, CURRENCY, ENGINE, MFU_SOURCE, SEGMENT, TASK, VERDICT, enum_label, label, pick, unit
from advisor.markdown import bullet_list, number, table
from knowledge.bilingual import Text
from knowledge.gpus import GPU
from tools.common import LineItem
from tools.cost.money import SYMBOLS, money
from tools.cost.tco import TcoResult
from tools.cost.training_time import TrainingTimeResult
from tools.memory.schema import MemoryEstimate
from tools.recommend import Recommendation
from tools.serving.schema import ThroughputResult
from tools.troubleshoot.diagnose import Diagnosis

NBSP = "\u00a0"


def readable(value: float) -> str:
    """Readable value: huge counts such as training FLOPs in scientific form, tiny ones not rounded to 0."""
    if abs(value) >= 1e9:
        return f"{value:.3e}"
    return f"{value:.2g}" if 0 < abs(value) < 0.1 else number(value, 2)


def keep_together(text: str) -> str:
    """No line break inside a figure: its spaces become no-break spaces."""
    return text.replace(" ", NBSP)


def value_text(item: LineItem, language: str) -> str:
    """'16.06 GB', '$316,250', '16.25 个月', '$2.83/卡时', '24.67%' — in the language, never wrapping."""
    code = item.unit
    if code in SYMBOLS:
        return keep_together(money(item.value, code))
    if code.endswith("/GPU-hour") and code.split("/")[0] in SYMBOLS:
        return keep_together(money(item.value, code.split("/")[0]) + "/" + pick(language, "GPU-hour", "卡时"))
    if code == "%":
        return keep_together(f"{readable(item.value)}%")
    shown = unit(code, language)
    return keep_together(f"{readable(item.value)} {shown}".strip())


def items_table(items: Sequence[LineItem], language: str) -> str:
    headers = ("Item", "Value", "Formula") if language == "en" else ("项目", "数值", "计算公式")
    return table(headers, [(i.label.pick(language), value_text(i, language), f"`{i.formula_in(language)}`") for i in items])


def footnote(text: Text, language: str) -> str:
    return f"<sub>{pick(language, 'Note: ', '注：')}{text.pick(language)}</sub>"


def _texts(texts: Sequence[Text], language: str) -> str:
    return bullet_list([text.pick(language) for text in texts])


def gb(value: float, digits: int = 1) -> str:
    return keep_together(f"{number(value, digits)} GB")


def memory_markdown(estimate: MemoryEstimate, language: str) -> str:
    en = language == "en"
    name = estimate.model_label.pick(language)
    head = f"### {name}: **{gb(estimate.total_per_gpu_gb)}** per GPU" if en else f"### {name}：每卡 **{gb(estimate.total_per_gpu_gb)}**"
    parts = [head]
    if estimate.num_gpus > 1:
        split = f"TP {estimate.tp} × PP {estimate.pp} × DP {estimate.dp}"
        parts.append(f"{estimate.num_gpus} GPUs ({split}), all GPUs: {gb(estimate.total_all_gpus_gb)}" if en
                     else f"{estimate.num_gpus} 张卡（{split}），全部 GPU 合计 {gb(estimate.total_all_gpus_gb)}")  # fmt: skip
    if estimate.verdict and estimate.capacity:
        room = f"{number(estimate.headroom_pct or 0, 1)}%"
        capacity = f"{estimate.capacity.label.pick(language)}{pick(language, ': ', '：')}{gb(estimate.capacity.value)}"
        parts.append(f"**{label(VERDICT[estimate.verdict], language)}** — {capacity}" + pick(language, f", headroom {room}", f"，余量 {room}"))
    if estimate.main_lever:
        parts.append(("**Main lever:** " if en else "**首要调整：**") + estimate.main_lever.pick(language))
    if estimate.kv_cache_tokens is not None:
        concurrency = number(estimate.max_concurrency or 0, 1)
        parts.append(f"KV cache room: {estimate.kv_cache_tokens:,} tokens, about {concurrency} sequences at full context" if en
                     else f"KV 缓存可容纳 {estimate.kv_cache_tokens:,} 个 token，约 {concurrency} 条完整上下文的序列")  # fmt: skip
    parts.append(items_table(estimate.items, language) + "\n\n" + footnote(estimate.unit_note, language))
    parts.append(_texts(estimate.notes + estimate.assumptions, language))
    return "\n\n".join(p for p in parts if p)


def serving_markdown(result: ThroughputResult, language: str) -> str:
    """The speeds a user sees, what limits them, and every step of the arithmetic."""
    en, name = language == "en", result.model_label.pick(language)
    user, total = number(result.decode_tokens_per_s_per_seq, 1), number(result.output_tokens_per_s_total, 1)
    ttft, engine = number(result.ttft_ms, 0), enum_label(ENGINE, result.engine, language)
    split = f"TP={result.tp}" + (f" × {result.replicas}" if result.replicas > 1 else "")
    head = (f"### {name} on {result.num_gpus} × {result.gpu} ({engine}, {split}): **{keep_together(user + ' tokens/s')}** per user" if en
            else f"### {name}，{result.num_gpus} 张 {result.gpu}（{engine}，{split}）：单用户 **{keep_together(user + ' token/s')}**")  # fmt: skip
    lines = [head]
    lines.append(pick(language, f"Total {total} tokens/s at {result.effective_batch} concurrent requests; time to first token {ttft} ms.",
                      f"并发 {result.effective_batch} 个请求时总吞吐 {total} token/s；首 token 延迟 {ttft} 毫秒。"))  # fmt: skip
    bound = enum_label(BOUND, result.bound, language)
    lines.append(pick(language, f"**Limited by:** {bound}. Up to {result.max_batch_fits:,} requests fit in memory.",
                      f"**瓶颈**：{bound}。显存最多容纳 {result.max_batch_fits:,} 个并发请求。"))  # fmt: skip
    if result.max_concurrency_at_target is not None:
        most = result.max_concurrency_at_target
        lines.append(pick(language, f"**Most concurrent requests that meet the target:** {most:,}", f"**满足目标的最大并发**：{most:,}"))
    lines.append(items_table(result.lines, language))
    lines.append(_texts(result.notes + result.assumptions, language))
    return "\n\n".join(p for p in lines if p)


def tco_markdown(result: TcoResult, language: str) -> str:
    en, c = language == "en", result.currency
    months = result.horizon_months
    if result.saving_from_owning >= 0:
        verdict = pick(language, f"Buying saves {money(result.saving_from_owning, c)} over {months} months.",
                       f"{months} 个月内自建比租用省 {money(result.saving_from_owning, c)}。")  # fmt: skip
    else:
        verdict = pick(language, f"Renting saves {money(-result.saving_from_owning, c)} over {months} months.",
                       f"{months} 个月内租用比自建省 {money(-result.saving_from_owning, c)}。")  # fmt: skip
    if result.break_even_month is not None:
        verdict += f" Break-even: month {result.break_even_month}." if en else f"第 {result.break_even_month} 个月回本。"
    rate = number(result.break_even_utilisation_pct, 1)
    verdict += f" Break-even utilisation {rate}%." if en else f"盈亏平衡利用率 {rate}%。"
    sensitivity = ("**What moves the answer most**" if en else "**影响最大的假设**") + "\n" + _texts(result.sensitivities, language)
    return "\n\n".join([f"### {verdict}", items_table(result.items, language), sensitivity, result.power_reminder.pick(language)])


def training_markdown(result: TrainingTimeResult, language: str) -> str:
    en = language == "en"
    days, years = number(result.wall_clock_days, 1), number(result.wall_clock_days / 365, 1)
    head = (f"### ≈ {days} days on {result.num_gpus} × {result.gpu_name}" if en
            else f"### 约 {days} 天（{result.num_gpus} 张 {result.gpu_name}）")  # fmt: skip
    if result.wall_clock_days > 365:  # a multi-year answer is the point; say it in years too
        head += f" ≈ {years} years" if en else f"，约 {years} 年"
    if result.meets_deadline is not None:
        ok = ("meets the deadline" if en else "能按期完成") if result.meets_deadline else ("misses the deadline" if en else "无法按期完成")
        head += f" — {ok}"
    source = enum_label(MFU_SOURCE, result.mfu_source, language)
    mfu = f"MFU {number(result.mfu * 100, 1)}% ({source})" if en else f"MFU {number(result.mfu * 100, 1)}%（{source}）"
    return "\n\n".join(p for p in [head, mfu, items_table(result.items, language), _texts(result.warnings, language)] if p)


def diagnosis_markdown(result: Diagnosis, language: str) -> str:
    en = language == "en"
    if not result.findings:
        return _texts(result.notes, language) or ("No known problem matched." if en else "没有匹配到已知问题。")
    blocks = []
    for rank, finding in enumerate(result.findings, 1):
        lines = [f"### {rank}. {finding.title.pick(language)} ({number(finding.score * 100, 0)}%)"]
        evidence = {e.line: e.excerpt for e in finding.evidence}  # a line matched by parser and pattern shows once
        where = "L{}: " if en else "第 {} 行："
        lines += [f"> {where.format(line)}`{excerpt}`" for line, excerpt in list(evidence.items())[:3]]
        lines.append(("**Likely causes**" if en else "**可能原因**") + "\n" + _texts(finding.causes, language))
        actions = [pick(language, a.en, a.zh) + (f" — `{a.command}`" if a.command else "") for a in finding.actions]
        lines.append(("**What to do**" if en else "**处理建议**") + "\n" + bullet_list(actions))
        blocks.append("\n\n".join(lines))
    return "\n\n".join(blocks + [_texts(result.notes, language)])


CATALOG_COLUMNS = {
    "en": ["GPU", "Vendor", "Segment", "Memory (GB, as sold)", "Bandwidth (GB/s)", "BF16 TFLOPS", "FP8 TFLOPS", "TDP (W)", "China", "Year"],
    "zh": ["GPU", "厂商", "类别", "显存（标称 GB）", "带宽（GB/s）", "BF16 TFLOPS", "FP8 TFLOPS", "功耗（W）", "国内", "年份"],
}


def catalog_rows(gpus: Sequence[GPU], language: str) -> list[list]:
    """One row per GPU; numbers stay numbers so the table sorts numerically."""
    return [
        [g.name, g.vendor, enum_label(SEGMENT, g.segment, language), g.memory_gb, g.bandwidth_gbs, g.bf16_tflops, g.fp8_tflops,
         g.tdp_w, label(CHINA_STATUS[g.china], language), g.launch_year]
        for g in gpus
    ]  # fmt: skip


RECOMMEND_COLUMNS = {
    "en": ["#", "Configuration", "Count", "Plan", "Needs per GPU (GB)", "Sold as (GB)", "Holds (GB)", "Headroom %", "Purchase", "Cloud per hour",
           "token/s per user", "token/s total", "Notes"],
    "zh": ["#", "配置", "数量", "并行方案", "每卡需要（GB）", "标称显存（GB）", "实有显存（GB）", "余量 %", "采购价", "云上每小时",
           "每用户 token/s", "总 token/s", "说明"],
}  # fmt: skip


def recommendation_table(result: Recommendation, language: str) -> tuple[list[str], list[list], str]:
    """Headers, one sortable row per option (numbers kept numeric), and a Markdown summary above the table."""
    rows = [
        # the first reason restates the memory columns; the table shows the others
        [rank, o.config_label.pick(language), o.count, o.plan_label.pick(language), round(o.per_gpu_gb, 1), o.nominal_memory_gb,
         round(o.capacity_gb, 1), round(o.headroom_pct, 1), _rounded(o.purchase_cost, 0), _rounded(o.cloud_cost_per_hour, 2),
         _rounded(o.tokens_per_s_per_user, 1), _rounded(o.tokens_per_s_total, 0),
         pick(language, "; ", "；").join(r.pick(language) for r in o.reasons[1:])]
        for rank, o in enumerate(result.options, 1)
    ]  # fmt: skip
    task, currency = enum_label(TASK, result.task, language), enum_label(CURRENCY, result.currency, language)
    head = f"### {result.model_label.pick(language)}（{number(result.params_b, 1)}B）· {task} · {currency}"
    if language == "en":
        head = f"### {result.model_label.en} ({number(result.params_b, 1)}B) · {task} · {currency}"
    if not result.options:
        head += "\n\n" + pick(language, "No catalog GPU fits within the limits given.", "在给定条件下没有合适的 GPU。")
    summary = "\n\n".join(p for p in [head, _texts(result.notes + result.excluded, language), footnote(result.unit_note, language)] if p)
    symbol = SYMBOLS[result.currency]
    money_header = pick(language, "{} ({})", "{}（{}）")
    headers = [money_header.format(h, symbol) if i in (8, 9) else h for i, h in enumerate(RECOMMEND_COLUMNS[language])]
    return headers, rows, summary


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
