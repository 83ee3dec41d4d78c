""" "NVIDIA, Ascend or Hygon for our 70B serving?": one row per vendor named — buyable in mainland China (status and
its dated rule), the configuration and its whole price, the speed for the stated workload, the software and what
porting from CUDA takes — and a verdict line first. Figures come from ``recommend_gpus`` (sized over every part the
named vendors sell there); the vendors and their wording are data (knowledge/vendor_options.yaml)."""

from __future__ import annotations

from advisor.labels import CHINA_STATUS
from advisor.markdown import number, table
from advisor.offline.tasks.recommend.price_view import option_price
from advisor.offline.workload import TASK_LABEL, model_of, precision_for, task_of
from advisor.offline.turn import Turn
from knowledge.bilingual import Text
from knowledge.vendor_options import Vendor, vendor_options



def _fill(template: Text, **values: object) -> Text:
    return Text(en=template.en.format(**values), zh=template.zh.format(**values))


def _best(options: list[dict], vendor: Vendor) -> dict | None:
    """The vendor's fastest configuration that runs the workload as asked (the cheaper of two equally fast)."""
    working = [o for o in options if o["gpu_id"] in vendor.china_parts and o.get("meets_target") is not False]
    speed = "tokens_per_s_per_user" if any(o.get("tokens_per_s_per_user") for o in working) else "total_tflops"
    return min(working, key=lambda o: (-(o.get(speed) or 0), o.get("purchase_cost") or float("inf")), default=None)


def answer(turn: Turn) -> str:
    text = vendor_options().text
    named = [v for v in vendor_options().vendors if v.id in turn.ask.vendors_named]
    task, _ = task_of(turn)
    workload = turn.t(*TASK_LABEL[task])
    model = model_of(turn)
    parts = [p for v in named for p in v.china_parts]
    options: list[dict] = []
    currency = "CNY"
    if parts:
        outcome = turn.call("recommend_gpus", {
            "model": model, "task": task, "precision": precision_for(turn, task), "context": turn.slots.context_length,
            "concurrency": turn.slots.concurrency if task == "inference" else None, "gpus": parts, "region": "cn",
            "currency": currency, "top": len(parts),
        })  # fmt: skip
        if outcome.ok:
            options, currency = outcome.result["options"], outcome.result["currency"]
            workload = (
                f"{workload} {turn.text(outcome.result['model_label'])}"
                if turn.language == "en"
                else f"{turn.text(outcome.result['model_label'])}{workload}"
            )
    chosen = {v.id: _best(options, v) for v in named}
    ranked = sorted(
        (v for v in named if chosen[v.id]),
        key=lambda v: (-(chosen[v.id].get("tokens_per_s_per_user") or 0), chosen[v.id].get("purchase_cost") or 0),
    )

    def described(template: Text, vendor: Vendor, key: str) -> str:
        o = chosen[vendor.id]
        return turn.text(_fill(template, **{key: turn.text(vendor.label)}, workload=workload, config=turn.text(o["config_label"]),
                               speed=number(o.get("tokens_per_s_per_user")) if o.get("tokens_per_s_per_user") else "—",
                               price=option_price(turn, o, currency) if o.get("purchase_cost") is not None else "—",
                               strength=turn.text(vendor.strength)))  # fmt: skip

    lines = [described(text.lead, ranked[0], "best")] if ranked else [turn.text(_fill(text.none_fits, workload=workload))]
    lines += [described(text.alternative, v, "other") for v in ranked[1:2]]
    rows = []
    for vendor in named:
        o = chosen[vendor.id]
        if o is None:
            part = vendor.china_parts[0] if vendor.china_parts else None
            status = _status(turn, part) if part else turn.text(text.no_part)
            rows.append([turn.text(vendor.label), status, turn.text(text.no_part) if not part else "—", turn.text(text.no_speed),
                         turn.text(vendor.software), turn.text(vendor.porting)])  # fmt: skip
            continue
        speed = (
            turn.text(_fill(text.speed, speed=number(o["tokens_per_s_per_user"])))
            if o.get("tokens_per_s_per_user")
            else turn.text(text.no_speed)
        )
        price = option_price(turn, o, currency) if o.get("purchase_cost") is not None else "—"
        rows.append([turn.text(vendor.label), _status(turn, o["gpu_id"]), f"{turn.text(o['config_label'])}, {price}", speed,
                     turn.text(vendor.software), turn.text(vendor.porting)])  # fmt: skip
        for source in vendor.sources:
            turn.cite(f"vendor:{vendor.id}:{source[:30]}", turn.text(vendor.label), source, citation=source)
    headers = list(text.headers.en if turn.language == "en" else text.headers.zh)
    return "\n\n".join([" ".join(lines), table(headers, rows)])


def _status(turn: Turn, gpu_id: str) -> str:
    """One status per part, from its China rule (the same line every answer uses), with the rule's date."""
    gpu = turn.catalog.gpu(gpu_id)
    rule = gpu.china_rule
    label = turn.t(*CHINA_STATUS[gpu.china])
    if rule is None or turn.t(rule.label_en, rule.label_zh).casefold() in label.casefold():
        return label
    return f"{label} ({turn.t(rule.label_en, rule.label_zh)}, {rule.date})"
