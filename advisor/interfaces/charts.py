"""Plotly figures built from tool results: pure functions, so they are unit-tested without a browser."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from advisor.interfaces.door_text import TEXT as DOORS
from advisor.interfaces.ui_text import TEXT, t
from advisor.labels import CURRENCY, enum_label, pick
from tools.common import LineItem
from tools.cost.money import SYMBOLS
from tools.cost.tco import TcoResult
from tools.memory.schema import MemoryEstimate
from tools.serving.schema import ThroughputResult

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
USER_COLOUR, TOTAL_COLOUR, TTFT_COLOUR, TARGET_COLOUR, LOAD_COLOUR = "#4C78A8", "#F58518", "#54A24B", "#E45756", "#9D755D"


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
    category = f"{gpus}{estimate.gpu or DOORS.pick('charts.one_gpu', language)}"
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
    month = DOORS.pick("charts.month_hover", language)
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
                text=[DOORS.pick("charts.break_even_at", language, label=label, month=point.month)],
                textposition="top left",
                hovertemplate=f"{label}<br>{month}: {symbol}%{{y:,.0f}}<extra></extra>",
            )
        )
    fig.update_yaxes(tickprefix=symbol, separatethousands=True)
    gpus, currency = result.total_gpus, enum_label(CURRENCY, result.currency, language)
    title = t("tco_chart", language) + DOORS.pick("charts.tco_title_suffix", language, gpus=gpus, currency=currency)
    return _layout(fig, title, t("axis_month", language), t("axis_cost", language))


def serving_figure(
    curve: list[ThroughputResult], result: ThroughputResult, language: str,
    target_tokens_per_s: float | None = None, target_ttft_ms: float | None = None,
) -> go.Figure:  # fmt: skip
    """Speed by concurrency, one estimate per point: tokens/s per user (left axis) and in total (right axis)
    above, time to first token below; each target is a horizontal line, the requested concurrency and the
    most that meets the targets are vertical ones."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.65, 0.35], vertical_spacing=0.08,
                        specs=[[{"secondary_y": True}], [{}]])  # fmt: skip
    batches, sep = [r.batch for r in curve], pick(language, ": ", "：")
    series = (
        ("series_per_user", [r.tokens_per_s_per_user_streaming for r in curve], USER_COLOUR, 1, False, "token/s"),
        ("series_total", [r.output_tokens_per_s_total for r in curve], TOTAL_COLOUR, 1, True, "token/s"),
        ("series_ttft", [r.ttft_ms for r in curve], TTFT_COLOUR, 2, False, DOORS.pick("charts.ms", language)),
    )
    for key, values, colour, row, secondary, unit_text in series:
        name = t(key, language)
        fig.add_trace(
            go.Scatter(name=name, x=batches, y=values, mode="lines", line={"color": colour, "width": 3}, meta=key,
                       hovertemplate=f"{name}{sep}%{{y:,.1f}} {unit_text}<br>{t('axis_concurrency', language)}{sep}%{{x}}<extra></extra>"),
            row=row, col=1, secondary_y=secondary if row == 1 else None,
        )  # fmt: skip
    if target_tokens_per_s:
        fig.add_hline(y=target_tokens_per_s, row=1, col=1, secondary_y=False, line={"color": TARGET_COLOUR, "dash": "dash", "width": 2},
                      annotation_text=f"{t('target_speed_line', language)}{sep}{target_tokens_per_s:,.0f} token/s",
                      annotation_position="top right")  # fmt: skip
    if target_ttft_ms:
        fig.add_hline(y=target_ttft_ms, row=2, col=1, line={"color": TARGET_COLOUR, "dash": "dash", "width": 2},
                      annotation_text=f"{t('target_ttft_line', language)}{sep}{target_ttft_ms:,.0f} {DOORS.pick('charts.ms', language)}",
                      annotation_position="top right")  # fmt: skip
    if result.max_concurrency_at_target and (target_tokens_per_s or target_ttft_ms):
        fig.add_vline(x=result.max_concurrency_at_target, line={"color": TARGET_COLOUR, "dash": "dot", "width": 1},
                      annotation_text=f"{t('max_at_target', language)}{sep}{result.max_concurrency_at_target:,}",
                      annotation_position="top left")  # fmt: skip
    fig.add_vline(x=result.batch, line={"color": LOAD_COLOUR, "dash": "dot", "width": 1},
                  annotation_text=f"{t('requested', language)}{sep}{result.batch:,}", annotation_position="bottom right")  # fmt: skip
    fig.update_yaxes(title_text=t("axis_speed_user", language), rangemode="tozero", row=1, col=1, secondary_y=False)
    fig.update_yaxes(title_text=t("axis_speed_total", language), rangemode="tozero", row=1, col=1, secondary_y=True, showgrid=False)
    fig.update_yaxes(title_text=t("axis_ttft", language), rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text=t("axis_concurrency", language), row=2, col=1)
    title = f"{result.model_label.pick(language)} · {result.num_gpus}× {result.gpu} · {t('serving_chart', language)}"
    _layout(fig, title, "", "")
    fig.update_layout(height=620, xaxis_title=None, yaxis_title=t("axis_speed_user", language))
    return fig
