"""Plotly figures built from tool results: pure functions, so they are unit-tested without a browser."""

from __future__ import annotations

import plotly.graph_objects as go

from advisor.interfaces.ui_text import TEXT, t
from advisor.labels import CURRENCY, enum_label, pick
from tools.common import LineItem
from tools.cost.money import SYMBOLS
from tools.cost.tco import TcoResult
from tools.memory.schema import MemoryEstimate

# The estimator itemises finely (cuda_context, kv_growth_copy, peak_overlap…); the chart stacks six groups,
# bottom to top from what the model always holds to fixed costs, and the hover lists the items in each.
MEMORY_GROUPS: dict[str, tuple[str, ...]] = {
    "weights": ("weights",),
    "gradients": ("gradients",),
    "optimizer": ("optimizer_states", "optimizer"),
    # peak_overlap is the negative correction for transient activations/logits that never coexist
    "activations": ("activations", "prefill_activations", "attention_scores", "logits", "recompute_working_set", "peak_overlap"),
    "kv_cache": ("kv_cache", "kv_growth_copy"),
    "overhead": ("cuda_context", "cuda_graphs", "non_torch", "fragmentation", "sharding_buffers", "overhead"),
}
GROUP_OF = {key: group for group, keys in MEMORY_GROUPS.items() for key in keys}
MEMORY_COLOURS = {
    "weights": "#4C78A8",
    "gradients": "#F58518",
    "optimizer": "#E45756",
    "activations": "#72B7B2",
    "kv_cache": "#54A24B",
    "overhead": "#9D755D",
}
CAPACITY_COLOUR = "#B279A2"
OWN_COLOUR, CLOUD_COLOUR, MARKER_COLOUR = "#4C78A8", "#F58518", "#E45756"


def memory_groups(estimate: MemoryEstimate) -> dict[str, list[LineItem]]:
    """Line items per chart group, in stacking order; keys the chart does not know get a group of their own."""
    groups: dict[str, list[LineItem]] = {group: [] for group in MEMORY_GROUPS}
    for item in estimate.items:
        groups.setdefault(GROUP_OF.get(item.key, item.key), []).append(item)
    return {group: items for group, items in groups.items() if items}


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str) -> go.Figure:
    fig.update_layout(
        title=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
        template="plotly_white",
        legend={"orientation": "h", "yanchor": "top", "y": -0.18},
        margin={"l": 60, "r": 20, "t": 60, "b": 40},
        height=460,
    )
    return fig


def memory_figure(estimate: MemoryEstimate, language: str) -> go.Figure:
    """Stacked bar of per-GPU memory by component, with the GPU's usable capacity as a horizontal line."""
    gpus = f"{estimate.num_gpus}×" if estimate.num_gpus > 1 else ""
    category = f"{gpus}{estimate.gpu or ('GPU' if language == 'en' else '单卡')}"
    fig = go.Figure()
    for group, items in memory_groups(estimate).items():
        value = max(0.0, sum(i.value for i in items))  # a group is never drawn below zero
        if value <= 0:
            continue
        name = t(f"mem_{group}", language) if f"mem_{group}" in TEXT else items[0].label.pick(language)
        detail = "<br>".join(f"{i.label.pick(language)}{pick(language, ': ', '：')}{i.value:,.2f} GB" for i in items)
        fig.add_trace(
            go.Bar(
                name=name, x=[category], y=[round(value, 4)], meta=group, marker_color=MEMORY_COLOURS.get(group),
                customdata=[detail], hovertemplate=f"<b>{name}</b>: %{{y:.2f}} GB<br>%{{customdata}}<extra></extra>",
            )
        )  # fmt: skip
    fig.update_layout(barmode="stack", bargap=0.55)  # one bar: keep it a bar, not a wall
    capacity = estimate.capacity.value if estimate.capacity else estimate.gpu_capacity_gb
    if capacity:
        label = estimate.capacity.label.pick(language) if estimate.capacity else t("capacity", language)
        fig.add_hline(
            y=capacity,
            line={"color": CAPACITY_COLOUR, "dash": "dash", "width": 2},
            annotation_text=f"{label}{pick(language, ': ', '：')}{capacity:,.1f} GB",
            annotation_position="top left",
        )
    top = max(estimate.total_per_gpu_gb, capacity or 0) * 1.15
    fig.update_yaxes(range=[0, top or 1])
    title = f"{estimate.model_label.pick(language)} · {t('memory_chart', language)} · {estimate.total_per_gpu_gb:,.1f} GB"
    return _layout(fig, title, "", t("axis_gb", language))


def tco_figure(result: TcoResult, language: str) -> go.Figure:
    """Cumulative cash spent owning versus renting, month by month, with the break-even month marked."""
    months = [p.month for p in result.series]
    symbol = SYMBOLS[result.currency]
    month = pick(language, "month %{x}", "第 %{x} 个月")
    fig = go.Figure()
    for name, values, colour in (
        (t("series_own", language), [p.own_cumulative for p in result.series], OWN_COLOUR),
        (t("series_cloud", language), [p.cloud_cumulative for p in result.series], CLOUD_COLOUR),
    ):
        fig.add_trace(
            go.Scatter(
                name=name, x=months, y=values, mode="lines", line={"color": colour, "width": 3},
                hovertemplate=f"{name}<br>{month}: {symbol}%{{y:,.0f}}<extra></extra>",
            )
        )  # fmt: skip
    if result.break_even_month is not None:
        point = next(p for p in result.series if p.month == result.break_even_month)
        label = t("break_even", language)
        fig.add_trace(
            go.Scatter(
                name=label,
                x=[point.month],
                y=[point.cloud_cumulative],
                mode="markers+text",
                marker={"color": MARKER_COLOUR, "size": 14, "symbol": "star"},
                text=[pick(language, f"{label}: month {point.month}", f"{label}：第 {point.month} 个月")],
                textposition="top left",
                hovertemplate=f"{label}<br>{month}: {symbol}%{{y:,.0f}}<extra></extra>",
            )
        )
    fig.update_yaxes(tickprefix=symbol, separatethousands=True)
    gpus, currency = result.total_gpus, enum_label(CURRENCY, result.currency, language)
    title = t("tco_chart", language) + pick(language, f" ({gpus} GPUs, {currency})", f"（{gpus} 张卡，{currency}）")
    return _layout(fig, title, t("axis_month", language), t("axis_cost", language))
