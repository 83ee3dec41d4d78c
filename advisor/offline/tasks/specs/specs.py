"""GPU spec look-ups and side-by-side comparisons, straight from the catalog with its sources."""

from __future__ import annotations

from advisor.labels import CHINA_STATUS
from advisor.language import default_currency
from advisor.markdown import money, number, table
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.tco import price_dates, rent_prices
from advisor.offline.tasks.recommend import price_view, vendor_rows
from advisor.offline.tasks.specs.compare_view import link
from advisor.offline.turn import Turn

# (result key of the best GPU, GPU field, English, Chinese, unit) for the comparison's lead sentence
LEADERS = (
    ("best_memory", "memory_gb", "most memory", "显存最大", "GB"),
    ("best_bandwidth", "bandwidth_gbs", "highest bandwidth", "带宽最高", "GB/s"),
    ("best_bf16", "bf16_tflops", "fastest BF16", "BF16 算力最强", "TFLOPS"),
)
SAME = {"memory_gb": ("memory", "显存"), "bandwidth_gbs": ("bandwidth", "带宽"), "bf16_tflops": ("BF16", "BF16 算力")}


def answer(turn: Turn, value_first: bool = False) -> str:
    """``value_first``: the question weighs the named cards against each other ("H100 now, H200, or wait for
    B200?"), so what a unit of compute and of bandwidth costs on each leads, whatever objective was read."""
    if rent_prices.applies(turn):  # "what's a fair hourly price for an H100?": the rental market, not one catalog figure
        return rent_prices.answer(turn)
    names = turn.entities.gpus or turn.slots.gpus
    if not names:
        return _filtered_list(turn)
    if vendor_rows.applies(turn):  # "NVIDIA vs Ascend vs Hygon for our 70B serving?": a row per vendor, a verdict
        return vendor_rows.answer(turn)
    compared = compare.route(turn)  # "one L40S or two 4090s for a 32B model?": sized, timed and priced
    if compared is not None:
        return compared
    outcome = turn.call("compare_gpus", {"gpus": names[:6], "currency": default_currency(turn.language)})
    if not outcome.ok:
        return turn.error(outcome)
    result = outcome.result
    rows = result["rows"]
    headers = [turn.t("Spec", "参数")] + [r["gpu"]["name"] for r in rows]

    def line(label_en: str, label_zh: str, fmt) -> list[str]:
        return [turn.t(label_en, label_zh)] + [fmt(r) for r in rows]

    body = [
        line("Memory", "显存", lambda r: f"{number(r['gpu']['memory_gb'])} GB {r['gpu']['memory_type']}"),
        line("Bandwidth", "显存带宽", lambda r: f"{number(r['gpu']['bandwidth_gbs'])} GB/s"),
        line("BF16 dense", "BF16 稠密算力", lambda r: _tflops(r["gpu"]["bf16_tflops"])),
        line("FP8 dense", "FP8 稠密算力", lambda r: _tflops(r["gpu"]["fp8_tflops"])),
        line("Power", "功耗", lambda r: f"{number(r['gpu']['tdp_w'])} W" if r["gpu"]["tdp_w"] else "—"),
        line("Interconnect", "互联", lambda r: r["gpu"]["interconnect"].split(";")[0] if turn.language == "en" else link(turn, r["gpu"])),
        line("China", "国内可购", lambda r: turn.t(*CHINA_STATUS[r["gpu"]["china"]])),
        line("Purchase (indicative)", "参考购买价", lambda r: _price(r["gpu"]["purchase_price"])),
        line("Cloud /GPU-h", "云上每卡时", lambda r: _price(r["gpu"]["cloud_price"])),
    ]
    value_first = value_first or (turn.ask.buying and len(rows) > 1)  # "buy the H100 now or the H200?" weighs them
    bought = bool(result["best_training_value"])  # two or more priced to buy; else, when they are, to rent
    for best, field, en, zh, _, _ in (VALUES[work, bought] for work in WORKS):  # what a unit of compute or bandwidth costs
        if result[best]:
            body.append(line(en, zh, lambda r, field=field: _ratio(r[field], result["currency"])))
    if len(rows) == 1:
        gpu = rows[0]["gpu"]
        lead = turn.t(
            f"**{gpu['name']}**: {number(gpu['memory_gb'])} GB, {number(gpu['bandwidth_gbs'])} GB/s, {_tflops(gpu['bf16_tflops'])} dense BF16.",
            f"**{gpu['name']}**：显存 {number(gpu['memory_gb'])} GB，带宽 {number(gpu['bandwidth_gbs'])} GB/s，BF16 稠密算力 {_tflops(gpu['bf16_tflops'])}。",
        )
    else:
        lead = _leaders(turn, result)
    chosen = _value_lead(turn, result, bought, value_first) or _objective_lead(turn, [r["gpu"] for r in rows])
    if chosen:
        lead = chosen + "\n\n" + lead
    for r in rows:
        gpu = r["gpu"]
        note = turn.t(gpu["availability_en"], gpu["availability_zh"])
        turn.cite(f"gpu:{gpu['id']}", gpu["name"], note, citation=gpu["source"])
    if turn.ask.asks_price and not turn.ask.renting:  # "how much is an A800 server?": the machine's price leads
        priced = price_view.price_lines(turn, [r["gpu"]["id"] for r in rows])
        lead = f"{priced}\n\n{lead}" if priced else lead
    stale = price_dates.stale_note(turn, [dated for r in rows for dated in price_dates.gpu_prices(r["gpu"])])
    return "\n\n".join([lead, table(headers, body), *stale])


def _leaders(turn: Turn, result: dict) -> str:
    """Which GPU leads on memory, bandwidth and BF16; a figure they all share is called equal, not "most"."""
    gpus = [r["gpu"] for r in result["rows"]]
    by_id = {g["id"]: g["name"] for g in gpus}
    parts = []
    for best, key, en, zh, unit in LEADERS:
        values = [g[key] for g in gpus if g[key] is not None]
        if not result.get(best) or not values:
            continue
        if len(set(values)) == 1 and len(values) == len(gpus):
            same_en, same_zh = SAME[key]
            parts.append(turn.t(f"same {same_en}: {number(values[0])} {unit} each", f"{same_zh}相同：都是 {number(values[0])} {unit}"))
        elif values.count(max(values)) > 1:
            tied = [g["name"] for g in gpus if g[key] is not None and g[key] == max(values)]
            parts.append(turn.t(f"{en}: {' and '.join(tied)} (equal, {number(max(values))} {unit})", f"{zh}：{'、'.join(tied)}（并列，{number(max(values))} {unit}）"))
        else:
            parts.append(turn.t(f"{en}: **{by_id[result[best]]}**", f"{zh}：**{by_id[result[best]]}**"))
    text = turn.t("; ", "；").join(parts) + turn.t(".", "。")
    return text[:1].upper() + text[1:]


# "which of these is cheapest / draws the least power": (GPU field, pick the lowest, English, Chinese, unit)
OBJECTIVE_FIELDS = {
    "cheapest": ("purchase_price", True, "Cheapest to buy", "购买价最低"),
    "cheapest_cloud": ("cloud_price", True, "Cheapest to rent", "租用最便宜"),
    "least_power": ("tdp_w", True, "Least power", "功耗最低"),
    "most_memory": ("memory_gb", False, "Most memory", "显存最大"),
    "fastest": ("bf16_tflops", False, "Fastest (dense BF16)", "算力最强（BF16 稠密）"),
}


def _objective_lead(turn: Turn, gpus: list[dict]) -> str:
    """The answer to the objective the user stated, over the GPUs compared."""
    field = OBJECTIVE_FIELDS.get(turn.slots.objective or "")
    if field is None or len(gpus) < 2:
        return ""
    key, lowest, en, zh = field

    def value(gpu: dict) -> float | None:
        raw = gpu.get(key)
        return raw["amount"] if isinstance(raw, dict) else raw  # prices are {amount, currency, date}

    known = [g for g in gpus if value(g) is not None]
    if not known or (key.endswith("price") and len({g[key]["currency"] for g in known}) > 1):
        return ""
    best = (min if lowest else max)(known, key=value)
    tied = [g["name"] for g in known if value(g) == value(best)]
    units = {"tdp_w": "W", "memory_gb": "GB"}
    shown = _price(best[key]) if key.endswith("price") else (f"{number(best[key])} {units[key]}" if key in units else _tflops(best[key]))
    if key == "cloud_price":
        shown = turn.t(f"{shown} per GPU-hour", f"每卡时 {shown}")
    unknown = [g["name"] for g in gpus if value(g) is None]
    tail = turn.t(f" (no figure for {', '.join(unknown)})", f"（{'、'.join(unknown)} 无数据）") if unknown else ""
    if len(tied) > 1:
        return turn.t(f"**{en}: {' and '.join(tied)}** (equal, {shown}){tail}.", f"**{zh}：{'、'.join(tied)}**（并列，{shown}）{tail}。")
    return turn.t(f"**{en}: {best['name']}** — {shown}{tail}.", f"**{zh}：{best['name']}** —— {shown}{tail}。")


WORKS = ("training", "serving")
# What "better value" means for the work named: compute for training, bandwidth for serving (decode reads the weights);
# bought when two or more have a purchase price, else rented. (work, bought) → (result key of the best card, row field,
# table row English, Chinese, lead English, Chinese)
VALUES = {
    ("training", True): ("best_training_value", "price_per_bf16_tflops", "Price per BF16 TFLOPS", "每 TFLOPS（BF16）购价",
                         "For training, the most BF16 compute for the money", "训练看算力，同样的钱买到 BF16 算力最多的是"),
    ("serving", True): ("best_serving_value", "price_per_tb_s", "Price per TB/s", "每 TB/s 带宽购价",
                        "For serving, the most memory bandwidth for the money", "推理看显存带宽，同样的钱买到带宽最多的是"),
    ("training", False): ("best_training_rent", "rent_per_bf16_pflops", "Rent /GPU-h per BF16 PFLOPS", "每卡时租金 / PFLOPS（BF16）",
                          "For training, the most BF16 compute per rented GPU-hour", "训练看算力，每卡时租金买到 BF16 算力最多的是"),
    ("serving", False): ("best_serving_rent", "rent_per_tb_s", "Rent /GPU-h per TB/s", "每卡时租金 / TB/s 带宽",
                         "For serving, the most memory bandwidth per rented GPU-hour", "推理看显存带宽，每卡时租金买到带宽最多的是"),
}  # fmt: skip


def _value_lead(turn: Turn, result: dict, bought: bool, value_first: bool = False) -> str:
    """"H20和910B训练哪个划算": the price of a unit of the work's bottleneck, with its formula."""
    if (turn.slots.objective != "cheapest" and not value_first) or not (bought or result["best_training_rent"]):
        return ""
    named = [w for w in turn.slots.workloads if w != "inference"]
    works = ["training"] if named else ["serving"] if turn.slots.workloads else WORKS
    by_id = {r["gpu"]["id"]: r for r in result["rows"]}
    lines = []
    for work in works:
        best, field, _, _, en, zh = VALUES[work, bought]
        row = by_id[result[best]]
        others = [f"{r['gpu']['name']} {money(r[field]['amount'], result['currency'])}" for r in result["rows"] if r is not row and r[field]]
        lines.append(turn.t(
            f"**{en}: {row['gpu']['name']}** — `{row[field]['formula']}` (vs {', '.join(others)}).",
            f"**{zh} {row['gpu']['name']}** —— `{row[field]['formula']}`（对比 {'、'.join(others)}）。",
        ))
    lines.append(turn.t(
        "Indicative list prices with their dates; software support and interconnect (see the table) can outweigh the ratio.",
        "价格为带日期的参考价；软件生态和互联（见下表）可能比这个比值更重要。",
    ))
    return "\n\n".join(lines)


def _ratio(ratio: dict | None, currency: str) -> str:
    return money(ratio["amount"], currency) if ratio else "—"


def _tflops(value: float | None) -> str:
    return f"{number(value)} TFLOPS" if value else "—"


def _price(price: dict | None) -> str:
    if not price:
        return "—"
    return f"{money(price['amount'], price['currency'])} ({price['date']})"


def _china(turn: Turn, gpu: dict) -> str:
    """The China status with the rule that decides it ('export-controlled (ECCN 3A090.a.1, TPP ≥ 4,800)')."""
    rule = gpu.get("china_rule") or {}
    label = turn.t(rule.get("label_en", ""), rule.get("label_zh", ""))
    status = turn.t(*CHINA_STATUS[gpu["china"]])
    return turn.t(f"{status} ({label})", f"{status}（{label}）") if label else status


def _filtered_list(turn: Turn) -> str:
    args = {"china_mainland": turn.slots.region == "cn", "min_memory_gb": turn.slots.gpu_memory_gb or 0}
    outcome = turn.call("list_gpus", args)
    if not outcome.ok:
        return turn.error(outcome)
    gpus = outcome.result["gpus"][:12]
    rows = [[g["name"], f"{number(g['memory_gb'])} GB", _tflops(g["bf16_tflops"]), _china(turn, g)] for g in gpus]
    lead = turn.t("GPUs in the catalog matching your question:", "目录中符合条件的GPU：")
    return "\n\n".join([lead, table(["GPU", turn.t("Memory", "显存"), "BF16", turn.t("China", "国内")], rows)])
