"""The proposal laid out once, as format-neutral blocks; HTML, Markdown and PDF each draw these blocks.

All wording comes from text.yaml through ``phrase``; all numbers from the built ``Proposal``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.labels import pick
from advisor.markdown import money, number, token_count
from advisor.offline.workload import TASK_LABEL
from advisor.proposal.build import Proposal, in_language
from advisor.proposal.wording import facts, phrase, texts


@dataclass
class Heading:
    text: str
    level: int = 2


@dataclass
class Paragraph:
    text: str
    emphasis: bool = False


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


@dataclass
class Chart:
    name: str
    caption: str


@dataclass
class Code:
    lines: list[str]


@dataclass
class Document:
    title: str
    subtitle: str
    blocks: list = field(default_factory=list)
    footer: str = ""


def layout(p: Proposal, language: str) -> Document:
    t = _Words(language)
    model = in_language(p.model_label, language)
    task = pick(language, *TASK_LABEL[p.need.task.value])
    doc = Document(title=t("title"), subtitle=t("subtitle", model=model, task=task, date=p.inputs.built_on))
    add = doc.blocks.append
    add(Heading(t("h_need")))
    add(Paragraph(_need_paragraph(p, t)))
    add(Heading(t("h_recommendation")))
    for line in _verdict(p, t):
        add(Paragraph(line, emphasis=True))
    if p.options:
        add(_options_table(p, t))
    if reasons := _tier_reasons(p, t):
        add(Bullets(reasons))
    if p.recommender_notes:
        add(Bullets([in_language(n, language) for n in p.recommender_notes]))
    if p.memory:
        add(Heading(t("h_memory")))
        add(Chart("memory", t("chart_memory_title")))
        add(Table([t("col_config"), t("col_per_gpu"), t("col_capacity"), t("col_headroom")],
                  [[in_language(b.option, language), f"{number(b.total_gb)} GB", f"{number(b.capacity_gb)} GB",
                    f"{number((1 - b.total_gb / b.capacity_gb) * 100)}%"] for b in p.memory]))  # fmt: skip
    if p.speed is not None:
        add(Heading(t("h_speed")))
        add(Chart("speed", t("chart_speed_title")))
        add(Paragraph(_speed_line(p, t)))
    if p.training is not None:
        add(Heading(t("h_training")))
        add(Chart("training", t("chart_training_title")))
        add(
            Table(
                [t("chart_training_x"), t("chart_training_y")],
                [[str(g), number(d, 2)] for g, d in zip(p.training.gpus, p.training.days, strict=True)],
            )
        )
    add(Heading(t("h_tco")))
    if p.tco is not None:
        if p.tco_option:
            add(
                Paragraph(
                    t("tco_for_alternative", config=in_language(p.options[p.tco_option]["config_label"], language))
                    + " "
                    + in_language(p.tco_error, language)
                )
            )
        add(Chart("tco", t("chart_tco_title")))
        add(Paragraph(_tco_line(p, t), emphasis=True))
        add(Paragraph(t("tco_sensitive")))
        add(Bullets([in_language(s, language) for s in p.tco.sensitivities[:3]]))
    else:
        add(Paragraph(t("tco_unavailable") + (" " + in_language(p.tco_error, language) if p.tco_error else "")))
    if p.facility is not None:
        add(Heading(t("h_facility")))
        add(Table([t("col_item"), t("col_value"), t("col_formula")],
                  [[in_language(i.label, language), f"{number(i.value, 2)} {i.unit}", i.formula_in(language)] for i in p.facility.items]))  # fmt: skip
        cooling = t("cooling_liquid") if p.facility.liquid_cooled else t("cooling_air", kw=number(p.facility.total_kw, 1))
        add(Paragraph(cooling))
        if p.facility.notes:
            add(Bullets([in_language(n, language) for n in p.facility.notes]))
    if p.china:
        add(Heading(t("h_china")))
        add(Table([t("col_gpu"), t("col_status"), t("col_detail")],
                  [[c.gpu_name, in_language(c.status, language), in_language(c.detail, language)] for c in p.china]))  # fmt: skip
    add(Heading(t("h_risks")))
    add(Bullets([t(key) for key in p.risks]))
    if p.bench:
        add(Paragraph(t("bench_intro")))
        for step in p.bench:
            add(Paragraph(t(step.key, **step.values)))
            add(Code([line.format(**step.values) for line in texts()[step.key]["commands"]]))
    add(Heading(t("h_prices")))
    if p.prices:
        add(Table([t("col_item"), t("col_value"), t("col_date"), t("col_source")],
                  [[in_language(x.what, language), money(x.amount, x.currency), t("price_dated", date=x.date, age=in_language(x.age, language)) if x.age else x.date,
                    f"{x.source} {x.note}".strip()] for x in p.prices]))  # fmt: skip
    add(Heading(t("h_assumptions")))
    add(Bullets(_assumption_lines(p, t)))
    if p.figures:
        add(Table([t("col_item"), t("col_value"), t("col_basis"), t("col_source"), t("col_date")],
                  [[in_language(f.label, language), f.value, in_language(f.basis, language), " ".join(filter(None, [f.title, f.url])), f.date]
                   for f in p.figures]))  # fmt: skip
    add(Heading(t("h_inputs")))
    add(Paragraph(t("inputs_note")))
    doc.footer = t("footer", version=p.inputs.version, date=p.inputs.built_on, calls=p.tool_calls)
    return doc


class _Words:
    """``phrase`` bound to one language."""

    def __init__(self, language: str):
        self.language = language

    def __call__(self, key: str, **values) -> str:
        return phrase(key, self.language, **values)


def _mark(item, t: _Words) -> str:
    return t("stated", said=item.said) if item.stated and item.said else (t("stated_plain") if item.stated else t("assumed"))


def _need_paragraph(p: Proposal, t: _Words) -> str:
    n = p.need
    model = in_language(p.model_label, t.language)
    parts = [t("need_model", model=model, params=number(p.params_b)),
             t("need_task", task=pick(t.language, *TASK_LABEL[n.task.value]), mark=_mark(n.task, t))]  # fmt: skip
    if n.training:
        parts.append(t("need_tokens", tokens=token_count(float(n.tokens.value)), mark=_mark(n.tokens, t)))
        deadline = (
            t("need_deadline", days=number(n.deadline_days.value, 1), mark=_mark(n.deadline_days, t))
            if n.deadline_days.value
            else t("need_no_deadline")
        )
        parts.append(deadline)
    else:
        parts.append(t("need_users", users=n.concurrency.value, mark=_mark(n.concurrency, t)))
        parts.append(t("need_speed", speed=f"{float(n.speed_target.value):g}", mark=_mark(n.speed_target, t)))
    parts.append(t("need_context", context=number(n.context.value), mark=_mark(n.context, t)))
    if n.budget.stated:
        parts.append(t("need_budget", budget=money(n.budget.value["amount"], n.budget.value["currency"]), mark=_mark(n.budget, t)))
    else:
        parts.append(t("need_no_budget"))
    return t("need_joiner").join(parts) + t("need_end")


def _verdict(p: Proposal, t: _Words) -> list[str]:
    if p.none_fits:
        return [t("none_fits", model=in_language(p.model_label, t.language))]
    top = p.options[0]
    lines = [t("over_budget")] if p.over_budget else []
    price = money(_whole_price(top), p.need.currency) if _whole_price(top) is not None else "—"
    config, plan = in_language(top["config_label"], t.language), in_language(top["plan_label"], t.language)
    if servers := _servers_named(top, t):
        lines.append(t("recommended_in_servers", config=config, servers=servers, plan=plan, price=price))
    else:
        lines.append(t("recommended", config=config, plan=plan, price=price))
    return lines


def _servers_named(option: dict, t: _Words) -> str:
    """"2 × 8-GPU PCIe server": the machines the GPUs go in, when the recommender names a server class."""
    if not option.get("server_label") or not option.get("server_count"):
        return ""
    return t("servers_of_class", count=option["server_count"], server=in_language(option["server_label"], t.language))


def _tier_reasons(p: Proposal, t: _Words) -> list[str]:
    return [t("tier_reason", tier=in_language(o["tier"], t.language), reason=in_language(o["tier_reason"], t.language))
            for o in p.options if isinstance(o.get("tier"), dict) and isinstance(o.get("tier_reason"), dict)]  # fmt: skip


def _options_table(p: Proposal, t: _Words) -> Table:
    speed = any(o.get("tokens_per_s_per_user") is not None for o in p.options)
    headers = [t("col_tier"), t("col_config"), t("col_server"), t("col_plan"), t("col_per_gpu"), t("col_headroom"), t("col_fit")]
    if speed:
        headers += [t("col_speed_user"), t("col_speed_total")]
    headers += [t("col_price"), t("col_cloud")]
    rows = []
    for index, o in enumerate(p.options):
        tier = o.get("tier")  # a tier name, when the recommender gives one
        row = [in_language(tier, t.language) if isinstance(tier, dict) else t(f"tier_{index + 1}"), in_language(o["config_label"], t.language),
               _servers_named(o, t) or "—", in_language(o["plan_label"], t.language), f"{number(o['per_gpu_gb'])} GB", f"{number(o['headroom_pct'])}%",
               t(f"verdict_{o['verdict']}")]  # fmt: skip
        if speed:
            row += [number(o.get("tokens_per_s_per_user")), number(o.get("tokens_per_s_total"))]
        row += [money(_whole_price(o), p.need.currency), money(o.get("cloud_cost_per_hour"), p.need.currency)]
        rows.append(row)
    return Table(headers, rows)


def _whole_price(option: dict) -> float | None:
    """The whole configuration's price: a server bill of materials when the recommender gives one, else the GPUs' price."""
    for key in facts()["whole_price_fields"]:
        if isinstance(option.get(key), int | float):
            return option[key]
    return None


def _speed_line(p: Proposal, t: _Words) -> str:
    s = p.speed
    at_users = next((u for c, u in zip(s.concurrency, s.per_user, strict=True) if c == s.users), s.per_user[-1])
    key = "speed_meets" if at_users >= s.target else "speed_misses"
    return t(key, users=s.users, speed=number(at_users), target=f"{s.target:g}")


def _tco_line(p: Proposal, t: _Words) -> str:
    tco = p.tco
    values = {"capex": money(tco.capex, tco.currency), "saving": money(abs(tco.saving_from_owning), tco.currency),
              "years": number(tco.horizon_months / 12), "gpus": tco.total_gpus}  # fmt: skip
    if tco.break_even_month is not None:
        return t("tco_payback", month=tco.break_even_month, **values)
    return t("tco_no_payback", **values)


def _assumption_lines(p: Proposal, t: _Words) -> list[str]:
    lines = list(p.need.assumptions)
    lines.append(t("assume_prices"))
    if p.tco is not None:
        lines.append(t("assume_tco"))
    return lines
