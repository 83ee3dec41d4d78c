"""The specs answer's sentences from compare_gpus and list_gpus results: the lead (what one card has, which card leads,
the objective or the value asked for), the side-by-side table, the sources and the price dates. Wording from the package
text.yaml (section specs); every figure from the tool."""

from __future__ import annotations

from collections.abc import Iterable

from advisor.labels import CHINA_STATUS
from advisor.markdown import money, number, table
from advisor.offline.tasks.specs import verdict_view
from advisor.offline.tasks.specs.compare_view import link
from advisor.offline.tasks.tco import price_dates
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text

WORDING = Wording("specs", "specs")

# (result key of the best GPU, GPU field, English, Chinese, unit) for the comparison's lead sentence
LEADERS = (
    ("best_memory", "memory_gb", *WORDING.pair("specs_phrases.leaders.most_memory"), "GB"),
    ("best_bandwidth", "bandwidth_gbs", *WORDING.pair("specs_phrases.leaders.highest_bandwidth"), "GB/s"),
    ("best_bf16", "bf16_tflops", *WORDING.pair("specs_phrases.leaders.fastest_bf16"), "TFLOPS"),
)
SAME = {"memory_gb": WORDING.pair("specs_phrases.same.memory"), "bandwidth_gbs": WORDING.pair("specs_phrases.same.bandwidth"), "bf16_tflops": WORDING.pair("specs_phrases.same.bf16")}


def comparison(turn: Turn, result: dict, value_first: bool = False) -> tuple[str, str]:
    """The cards compared: the lead and the table, each card cited. ``value_first``: see ``specs.answer``."""
    rows = result["rows"]
    headers = [WORDING.say(turn, "specs_phrases.answer.spec")] + [r["gpu"]["name"] for r in rows]

    def line(label_en: str, label_zh: str, fmt) -> list[str]:
        return [turn.t(label_en, label_zh)] + [fmt(r) for r in rows]

    body = [
        line(*WORDING.pair("specs_phrases.answer.memory"), lambda r: f"{number(r['gpu']['memory_gb'])} GB {r['gpu']['memory_type']}"),
        line(*WORDING.pair("specs_phrases.answer.bandwidth"), lambda r: f"{number(r['gpu']['bandwidth_gbs'])} GB/s"),
        line(*WORDING.pair("specs_phrases.answer.bf16_dense"), lambda r: _tflops(r["gpu"]["bf16_tflops"])),
        line(*WORDING.pair("specs_phrases.answer.fp8_dense"), lambda r: _tflops(r["gpu"]["fp8_tflops"])),
        line(*WORDING.pair("specs_phrases.answer.power"), lambda r: f"{number(r['gpu']['tdp_w'])} W" if r["gpu"]["tdp_w"] else "—"),
        line(*WORDING.pair("specs_phrases.answer.interconnect"), lambda r: r["gpu"]["interconnect"].split(";")[0] if turn.language == "en" else link(turn, r["gpu"])),
        *([line(*WORDING.pair("specs_phrases.answer.china"), lambda r: turn.t(*CHINA_STATUS[r["gpu"]["china"]]))] if turn.china_matters else []),
        line(*WORDING.pair("specs_phrases.answer.purchase_indicative"), lambda r: _price(r["gpu"]["purchase_price"])),
        line(*WORDING.pair("specs_phrases.answer.cloud_gpu_h"), lambda r: _price(r["gpu"]["cloud_price"])),
    ]
    value_first = value_first or (turn.ask.buying and len(rows) > 1)  # "buy the H100 now or the H200?" weighs them
    bought = bool(result["best_training_value"])  # two or more priced to buy; else, when they are, to rent
    for best, field, en, zh, _, _ in (VALUES[work, bought] for work in WORKS):  # what a unit of compute or bandwidth costs
        if result[best]:
            body.append(line(en, zh, lambda r, field=field: _ratio(r[field], result["currency"])))
    if len(rows) == 1:
        gpu = rows[0]["gpu"]
        lead = WORDING.say(turn, "specs_phrases.answer.gb_gb_s_dense_bf16", name=gpu['name'], memory_gb=number(gpu['memory_gb']), bandwidth_gbs=number(gpu['bandwidth_gbs']), bf16_tflops=_tflops(gpu['bf16_tflops']))
    else:
        lead = _leaders(turn, result)
    # the objective asked for answers first ("which has more memory", "which is cheapest"); else the better card for the
    # job, or the difference that matters, then what a unit of the work costs on each when the cards are weighed to buy
    value = _value_lead(turn, result, bought, value_first)
    objective = _objective_lead(turn, [r["gpu"] for r in rows])
    if objective or (value and turn.slots.objective == "cheapest"):
        chosen = [value or objective]
    else:
        chosen = [verdict_view.lead(turn, result), value]
    lead = "\n\n".join([*filter(None, chosen), lead])
    for r in rows:
        gpu = r["gpu"]
        turn.cite_gpu(gpu)
    return lead, table(headers, body)


def stale_prices(turn: Turn, result: dict, machines: Iterable[tuple[Text, str]] = ()) -> list[str]:
    """The line naming the prices shown that are over 6 months old (none when all are recent): the compared cards'
    and, when a machine's price leads, the figures it adds (its host or a whole-server quote)."""
    return price_dates.stale_note(turn, [*(dated for r in result["rows"] for dated in price_dates.gpu_prices(r["gpu"])), *machines])


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
            parts.append(WORDING.say(turn, "lines.same_for_all", what=turn.t(*SAME[key]), value=number(values[0]), unit=unit))
        elif values.count(max(values)) > 1:
            tied = [g["name"] for g in gpus if g[key] is not None and g[key] == max(values)]
            parts.append(WORDING.say(turn, "lines.tied", what=turn.t(en, zh), names=_listed(turn, tied), value=number(max(values)), unit=unit))
        else:
            parts.append(turn.t(f"{en}: **{by_id[result[best]]}**", f"{zh}：**{by_id[result[best]]}**"))
    text = turn.t("; ", "；").join(parts) + turn.t(".", "。")
    return text[:1].upper() + text[1:]


# "which of these is cheapest / draws the least power": (GPU field, pick the lowest, English, Chinese, unit)
OBJECTIVE_FIELDS = {
    "cheapest": ("purchase_price", True, *WORDING.pair("specs_phrases.objective_fields.cheapest_to_buy")),
    "cheapest_cloud": ("cloud_price", True, *WORDING.pair("specs_phrases.objective_fields.cheapest_to_rent")),
    "least_power": ("tdp_w", True, *WORDING.pair("specs_phrases.objective_fields.least_power")),
    "most_memory": ("memory_gb", False, *WORDING.pair("specs_phrases.objective_fields.most_memory")),
    "fastest": ("bf16_tflops", False, *WORDING.pair("specs_phrases.objective_fields.fastest_dense_bf16")),
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
        shown = WORDING.say(turn, "specs_phrases.objective_lead.per_gpu_hour", shown=shown)
    unknown = [g["name"] for g in gpus if value(g) is None]
    tail = WORDING.say(turn, "lines.no_figure_for", names=_listed(turn, unknown, "lines.comma")) if unknown else ""
    if len(tied) > 1:
        return WORDING.say(turn, "lines.tied_lead", what=turn.t(en, zh), names=_listed(turn, tied), shown=shown, tail=tail)
    return turn.t(f"**{en}: {best['name']}** — {shown}{tail}.", f"**{zh}：{best['name']}** —— {shown}{tail}。")


WORKS = ("training", "serving")
# What "better value" means for the work named: compute for training, bandwidth for serving (decode reads the weights);
# bought when two or more have a purchase price, else rented. (work, bought) → (result key of the best card, row field,
# table row English, Chinese, lead English, Chinese)
VALUES = {
    ("training", True): ("best_training_value", "price_per_bf16_tflops", *WORDING.pair("specs_phrases.values.price_per_bf16_tflops"),
                         *WORDING.pair("specs_phrases.values.for_training_the_most_bf16")),
    ("serving", True): ("best_serving_value", "price_per_tb_s", *WORDING.pair("specs_phrases.values.price_per_tb_s"),
                        *WORDING.pair("specs_phrases.values.for_serving_the_most_memory")),
    ("training", False): ("best_training_rent", "rent_per_bf16_pflops", *WORDING.pair("specs_phrases.values.rent_gpu_h_per_bf16"),
                          *WORDING.pair("specs_phrases.values.for_training_the_most_bf16_2")),
    ("serving", False): ("best_serving_rent", "rent_per_tb_s", *WORDING.pair("specs_phrases.values.rent_gpu_h_per_tb"),
                         *WORDING.pair("specs_phrases.values.for_serving_the_most_memory_2")),
}  # fmt: skip


def _value_lead(turn: Turn, result: dict, bought: bool, value_first: bool = False) -> str:
    """"H20 or 910B, which is better value for training": the price of a unit of the work's bottleneck, with its formula."""
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
        lines.append(WORDING.say(turn, "lines.best_value", what=turn.t(en, zh), name=row["gpu"]["name"], formula=row[field]["formula"],
                                 others=_listed(turn, others, "lines.comma")))
    lines.append(WORDING.say(turn, "specs_phrases.value_lead.indicative_list_prices_with_their"))
    return "\n\n".join(lines)


def _listed(turn: Turn, names: list[str], joiner: str = "lines.and") -> str:
    """Names joined the way each language lists them ("A and B", "A、B")."""
    return WORDING.say(turn, joiner).join(names)


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


def filtered_list(turn: Turn, result: dict) -> str:
    """The catalog's cards matching the filters, a row each (the first twelve)."""
    gpus = result["gpus"][:12]
    rows = [[g["name"], f"{number(g['memory_gb'])} GB", _tflops(g["bf16_tflops"]), _china(turn, g)] for g in gpus]
    lead = WORDING.say(turn, "specs_phrases.filtered_list.gpus_in_the_catalog_matching")
    return "\n\n".join([lead, table(["GPU", WORDING.say(turn, "specs_phrases.filtered_list.memory"), "BF16", WORDING.say(turn, "specs_phrases.filtered_list.china")], rows)])
