"""The proposal's charts as static PNG images (matplotlib, Agg backend: no display, no browser).

Each chart draws a series the builder got from a tool; the labels come from text.yaml in the
proposal's language, set in the CJK font so Chinese labels render (never as empty boxes).
"""

from __future__ import annotations

import io
import textwrap
from functools import lru_cache

import matplotlib

matplotlib.use("Agg")
from matplotlib import font_manager
from matplotlib import pyplot as plt
from matplotlib.figure import Figure

from advisor.proposal.build import Proposal, in_language
from advisor.proposal.fonts import cjk_font
from advisor.proposal.wording import phrase

SIZE = (7.0, 3.6)
DPI = 110
CAPACITY_COLOUR = "#c0392b"
TARGET_COLOUR = "#c0392b"
PALETTE = ["#1f4e79", "#2e86c1", "#5dade2", "#a9cce3", "#48c9b0", "#f5b041", "#af7ac5", "#95a5a6"]


@lru_cache(maxsize=1)
def _font_family() -> str:
    path = cjk_font()
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def _figure() -> Figure:
    plt.rcParams["font.family"] = [_font_family(), "DejaVu Sans"]
    plt.rcParams["axes.unicode_minus"] = False  # the CJK font has no U+2212 minus sign
    figure = Figure(figsize=SIZE, dpi=DPI)
    return figure


def _png(figure: Figure, legend_outside: bool = False) -> bytes:
    # fixed margins: tight_layout measures every label and was a third of the chart time
    figure.subplots_adjust(left=0.1, right=0.68 if legend_outside else 0.97, top=0.9, bottom=0.2)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def _wrapped(label: str, width: int = 15) -> str:
    """A configuration name on short lines, so three of them fit side by side under their bars."""
    return "\n".join(textwrap.wrap(label, width)) or label


def memory_chart(p: Proposal, language: str) -> bytes | None:
    """Memory per GPU, stacked by component, beside each option's usable capacity."""
    if not p.memory:
        return None
    figure = _figure()
    axes = figure.subplots()
    names = [_wrapped(in_language(bar.option, language)) for bar in p.memory]
    components = list(dict.fromkeys(in_language(label, language) for bar in p.memory for label, _ in bar.parts))
    bottoms = [0.0] * len(p.memory)
    for index, component in enumerate(components):
        values = [sum(v for label, v in bar.parts if in_language(label, language) == component) for bar in p.memory]
        axes.bar(names, values, bottom=bottoms, label=component, color=PALETTE[index % len(PALETTE)], width=0.5)
        bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
    for x, bar in enumerate(p.memory):
        axes.hlines(bar.capacity_gb, x - 0.35, x + 0.35, colors=CAPACITY_COLOUR, linewidth=2,
                    label=phrase("chart_capacity", language) if x == 0 else None)  # fmt: skip
    axes.set_ylabel(phrase("chart_memory_axis", language))
    axes.set_title(phrase("chart_memory_title", language))
    axes.tick_params(axis="x", labelsize=8)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(figure, legend_outside=True)


def speed_chart(p: Proposal, language: str) -> bytes | None:
    """Speed each user sees as concurrency grows, against the target."""
    s = p.speed
    if s is None:
        return None
    figure = _figure()
    axes = figure.subplots()
    axes.plot(s.concurrency, s.per_user, marker="o", color=PALETTE[0], label=in_language(s.option, language))
    axes.axhline(s.target, color=TARGET_COLOUR, linestyle="--", label=phrase("chart_target", language, target=f"{s.target:g}"))
    axes.axvline(s.users, color="#7f8c8d", linestyle=":", label=phrase("chart_users", language, users=s.users))
    axes.set_xscale("log", base=2)
    axes.set_xticks(s.concurrency, [str(c) for c in s.concurrency])
    return _labelled(figure, axes, "speed", language)


def _labelled(figure, axes, chart: str, language: str, **values) -> bytes:
    """A line chart's axis names, title and legend (wording `chart_<chart>_x/_y/_title`), as a PNG."""
    axes.set_xlabel(phrase(f"chart_{chart}_x", language))
    axes.set_ylabel(phrase(f"chart_{chart}_y", language, **values))
    axes.set_title(phrase(f"chart_{chart}_title", language))
    axes.legend(fontsize=8)
    return _png(figure)


def training_chart(p: Proposal, language: str) -> bytes | None:
    """Wall-clock days against GPU count, with the deadline."""
    t = p.training
    if t is None:
        return None
    figure = _figure()
    axes = figure.subplots()
    axes.plot(t.gpus, t.days, marker="o", color=PALETTE[0], label=t.gpu_name)
    if t.deadline_days:
        axes.axhline(
            t.deadline_days, color=TARGET_COLOUR, linestyle="--", label=phrase("chart_deadline", language, days=f"{t.deadline_days:g}")
        )
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xticks(t.gpus, [str(g) for g in t.gpus])
    return _labelled(figure, axes, "training", language)


def tco_chart(p: Proposal, language: str) -> bytes | None:
    """Cumulative cash of owning and of renting, with the payback month marked."""
    tco = p.tco
    if tco is None or not tco.series:
        return None
    figure = _figure()
    axes = figure.subplots()
    months = [point.month for point in tco.series]
    axes.plot(months, [point.own_cumulative for point in tco.series], color=PALETTE[0], label=phrase("chart_own", language))
    axes.plot(months, [point.cloud_cumulative for point in tco.series], color="#e67e22", label=phrase("chart_rent", language))
    if tco.break_even_month is not None:
        axes.axvline(
            tco.break_even_month, color=TARGET_COLOUR, linestyle="--", label=phrase("chart_payback", language, month=tco.break_even_month)
        )
    axes.ticklabel_format(axis="y", style="plain")
    axes.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_short_money))
    return _labelled(figure, axes, "tco", language, currency=tco.currency)


def _short_money(value: float, _position: int) -> str:
    """Axis figures as 1.5M / 250k / 0."""
    if abs(value) >= 1e6:
        return f"{value / 1e6:g}M"
    return f"{value / 1e3:g}k" if value else "0"


def all_charts(p: Proposal, language: str) -> dict[str, bytes]:
    """Chart name → PNG, in the order the sections show them; a section without data has no chart."""
    drawn = {
        "memory": memory_chart(p, language),
        "speed": speed_chart(p, language),
        "training": training_chart(p, language),
        "tco": tco_chart(p, language),
    }
    return {name: png for name, png in drawn.items() if png is not None}
