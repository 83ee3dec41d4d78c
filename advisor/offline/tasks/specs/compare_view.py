"""How a comparison reads: the verdict with its reasons, and the side-by-side table of every option.

Only tool results are shown: the memory estimate's verdict and headroom, the throughput or training-time
estimate, and the catalog's per-card figures and dated prices (the whole option costs cards × price).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.labels import CHINA_STATUS, VERDICT
from advisor.markdown import money, number, table
from advisor.offline.turn import Turn

PEFT = ("qlora", "lora")  # the training-time tool's adapter methods, the more specific first
TIMED_TRAINING = ("full_finetune", "pretrain", *PEFT)  # every task the training-time tool counts FLOPs for
SAME_SPEED = 0.05  # speeds within 5% are "about the same"
SAME_HEADROOM = 5.0  # percentage points


def tool_method(task: str) -> str:
    """The method the memory and training-time tools take for an answer's task: an adapter method, else "full"."""
    return task if task in PEFT else "full"


@dataclass
class Option:
    gpu: dict  # the catalog row from compare_gpus
    count: int | None  # cards, as stated; None until the recommender picks the smallest configuration on sale
    stated: bool
    plan: str = ""
    tp: int = 1
    pp: int = 1
    zero: int = 0  # ZeRO stage when training over several cards
    fit: dict | None = None  # estimate_memory result at this count
    speed: dict | None = None  # estimate_throughput result
    training: dict | None = None  # estimate_training_time result
    needed: str = ""  # when it does not fit: how many cards would
    problem: str = ""  # a tool's explanation when the option could not be evaluated

    @property
    def name(self) -> str:
        return self.gpu["name"]

    @property
    def label(self) -> str:
        return f"{self.count}× {self.name}" if self.count else self.name  # no count picked: the card alone, never "?×"

    @property
    def fits(self) -> bool:
        return bool(self.fit) and self.fit.get("verdict") in ("fits", "tight")

    def price(self, kind: str) -> dict | None:
        return self.gpu.get(kind)

    def total(self, kind: str) -> float | None:
        price = self.price(kind)
        return price["amount"] * self.count if price and self.count else None


# --- the verdict -----------------------------------------------------------------------------------


def _pick_best(opts: list[Option], value, higher: bool, close: float) -> Option | None:
    """The option clearly best on ``value`` (None when some value is unknown or the best two are within ``close``)."""
    values = [value(o) for o in opts]
    if len(opts) < 2 or any(v is None for v in values):
        return None
    ranked = sorted(zip(values, range(len(opts)), strict=True), reverse=higher)
    (best, i), (second, _) = ranked[0], ranked[1]
    if abs(best - second) <= close * max(abs(best), abs(second), 1e-9):
        return None
    return opts[i]


def _cost_kind(opts: list[Option]) -> str | None:
    """Purchase prices when every option has one in the same currency, else cloud prices, else none."""
    for kind in ("purchase_price", "cloud_price"):
        prices = [o.price(kind) for o in opts]
        if all(prices) and len({p["currency"] for p in prices}) == 1:
            return kind
    return None


# "cheapest", "最便宜": the lowest price itself, not the most speed for the money ("best value", "划算")


def _speed(o: Option) -> float | None:
    if o.speed:
        return o.speed["decode_tokens_per_s_per_seq"]
    if o.training:
        return 1 / o.training["wall_clock_days"]
    return None


def _cost_text(o: Option, kind: str) -> str:
    return money(o.total(kind), o.price(kind)["currency"])


def _speed_value(o: Option) -> str:
    return number(o.speed["decode_tokens_per_s_per_seq"]) if o.speed else number(o.training["wall_clock_days"], 2)


def verdict(turn: Turn, opts: list[Option], task: str) -> str:
    notes = _equal_specs(turn, opts)
    fitting = [o for o in opts if o.fits]
    for o in opts:
        if not o.fits and not o.problem:
            need = f" ({o.needed})" if o.needed else ""
            notes.append(turn.t(f"**{o.label}** does not hold the workload{need}.", f"**{o.label}** 放不下{need}。"))
    if not fitting:
        lead = turn.t("**No option fits as stated.**", "**按所给配置，各方案都放不下。**")
        return "\n".join([lead, *(f"- {line}" for line in notes)])
    if len(fitting) == 1:
        only = fitting[0]
        lead = turn.t(
            f"**Choose {only.label}** ({only.plan}): it is the only option that fits.",
            f"**建议选 {only.label}**（{only.plan}）：只有它放得下。",
        )
        return "\n".join([lead, *(f"- {line}" for line in notes)])
    kind = _cost_kind(fitting)
    cheaper = _pick_best(fitting, lambda o: o.total(kind), higher=False, close=0.0) if kind else None
    faster = _pick_best(fitting, _speed, higher=True, close=SAME_SPEED)
    roomier = _pick_best(fitting, lambda o: o.fit["headroom_pct"], higher=True, close=0.0)
    if roomier and any(roomier.fit["headroom_pct"] - o.fit["headroom_pct"] < SAME_HEADROOM for o in fitting if o is not roomier):
        roomier = None
    lines = [_trade_offs(turn, o, fitting, kind, cheaper, faster, roomier) for o in fitting]
    if faster is None and all(_speed(o) is not None for o in fitting):
        lines.append(turn.t("Speed is about the same (within 5%).", "速度基本相同（相差不到 5%）。"))
    return "\n".join([_lead(turn, fitting, kind, cheaper, faster, roomier), *(f"- {line}" for line in lines + notes)])


def _lead(turn: Turn, fitting: list[Option], kind: str | None, cheaper: Option | None, faster: Option | None, roomier: Option | None) -> str:
    if cheaper and cheaper is faster:
        return turn.t(f"**Choose {cheaper.label}**: cheaper and faster.", f"**建议选 {cheaper.label}**：更便宜也更快。")
    wanted = turn.slots.objective
    if cheaper and faster and wanted in ("cheapest", "cheapest_cloud", "fastest"):  # "哪个划算", "which is faster": the ranking asked for
        turn.slots.mark("objective")
        return _asked_ranking(turn, wanted, fitting, kind, cheaper, faster)
    if cheaper and faster:
        return turn.t(f"**{cheaper.label} if cost matters most, {faster.label} if speed matters most.**",
                      f"**看重成本选 {cheaper.label}，看重速度选 {faster.label}。**")  # fmt: skip
    best = cheaper or faster or roomier or min(fitting, key=lambda o: o.count)
    why = turn.t("cheaper", "更便宜") if best is cheaper else turn.t("faster", "更快") if best is faster else (
        turn.t("more memory headroom", "显存余量更大") if best is roomier else turn.t("fewest cards", "卡数最少"))  # fmt: skip
    return turn.t(f"**Choose {best.label}** ({why}); all options fit.", f"**建议选 {best.label}**（{why}）；各方案都放得下。")


def _asked_ranking(turn: Turn, wanted: str, fitting: list[Option], kind: str, cheaper: Option, faster: Option) -> str:
    """The fastest, the cheapest ("最便宜", "cheapest"), or the most speed for the money ("哪个划算", "best value")."""
    if wanted == "fastest":
        return turn.t(f"**Choose {faster.label}**: faster; {cheaper.label} is cheaper.", f"**建议选 {faster.label}**：更快；{cheaper.label} 更便宜。")
    if turn.ask.price_only:
        return turn.t(f"**Choose {cheaper.label}**: cheaper; {faster.label} is faster.", f"**建议选 {cheaper.label}**：更便宜；{faster.label} 更快。")
    by_value = sorted(fitting, key=lambda o: _speed(o) / o.total(kind), reverse=True)
    pick, other = by_value[0], by_value[1]
    more = round((_speed(pick) / pick.total(kind)) / (_speed(other) / other.total(kind)) * 100 - 100)
    trait_en, trait_zh = ("cheaper", "更便宜") if other is cheaper else ("faster", "更快")
    return turn.t(
        f"**Choose {pick.label}** for value: about {more}% more speed for the money than {other.label}, which is {trait_en}.",
        f"**建议选 {pick.label}**（性价比更高）：同样的钱速度高约 {more}%；{other.label} {trait_zh}。",
    )


def _trade_offs(turn: Turn, o: Option, fitting: list[Option], kind: str | None, cheaper, faster, roomier) -> str:
    others = [x for x in fitting if x is not o]
    pros, cons = [], []
    if o is cheaper:
        mine, vs = _cost_text(o, kind), ", ".join(_cost_text(x, kind) for x in others)
        pros.append(turn.t(f"cheaper to buy ({mine} vs {vs})", f"采购更便宜（{mine}，其他方案 {vs}）") if kind == "purchase_price"
                    else turn.t(f"cheaper to rent ({mine}/h vs {vs}/h)", f"租用更便宜（每小时 {mine}，其他方案 {vs}）"))  # fmt: skip
    if o is faster:
        mine, vs = _speed_value(o), ", ".join(_speed_value(x) for x in others)
        pros.append(turn.t(f"faster ({mine} vs {vs} tokens/s per user)", f"更快（单用户 {mine} token/s，其他方案 {vs} token/s）") if o.speed
                    else turn.t(f"faster ({mine} vs {vs} days)", f"更快（{mine} 天，其他方案 {vs} 天）"))  # fmt: skip
    room = number(o.fit["headroom_pct"])
    if o.count == 1:
        pros.append(turn.t(f"fits on one card with {room}% headroom", f"单卡放得下，余量 {room}%"))
    elif o is roomier:
        pros.append(turn.t(f"more headroom ({room}%)", f"余量更大（{room}%）"))
    if o.count > 1 and not o.gpu.get("nvlink_gbs"):
        cons.append(turn.t(f"needs {o.plan} over PCIe (no direct GPU link)", f"需要 {o.plan}，卡间只走 PCIe（没有高速直连）"))
    if o.fit["verdict"] == "tight":
        cons.append(turn.t(f"tight fit ({room}% headroom)", f"偏紧（余量 {room}%）"))
    if turn.slots.region == "cn" and o.gpu["china"] in ("export-controlled", "not-sold"):
        cons.append(turn.t(*CHINA_STATUS[o.gpu["china"]]))
    text = f"**{o.label}**" + turn.t(": ", "：") + turn.t("; ", "；").join(pros or [turn.t(f"fits ({o.plan})", f"放得下（{o.plan}）")])
    return text + (turn.t(", but ", "，但") + turn.t("; ", "；").join(cons) if cons else "")


def _equal_specs(turn: Turn, opts: list[Option]) -> list[str]:
    """Per-card figures the options share are said to be equal, never "more" for one of them."""
    lines = []
    for key, en, zh, unit in (
        ("memory_gb", "Memory per card", "单卡显存", "GB"),
        ("bandwidth_gbs", "Bandwidth per card", "单卡带宽", "GB/s"),
    ):
        values = {o.gpu[key] for o in opts}
        if len(values) == 1:
            shown = number(values.pop())
            lines.append(turn.t(f"{en} is the same: {shown} {unit} each.", f"{zh}相同：都是 {shown} {unit}。"))
    return lines


# --- the table -------------------------------------------------------------------------------------


def side_by_side(turn: Turn, opts: list[Option], task: str) -> str:
    def cell(o: Option, fn) -> str:
        try:
            return fn(o)
        except (TypeError, KeyError):
            return "—"

    def row(en: str, zh: str, fn) -> list[str]:
        return [turn.t(en, zh)] + [cell(o, fn) for o in opts]

    body = [
        row("Plan", "并行方案", lambda o: o.plan or "—"),
        row("Memory per card", "单卡显存", lambda o: f"{number(o.gpu['memory_gb'])} GB"),
        row("Fits?", "能否放下", lambda o: _fit_text(turn, o)),
        row("Headroom", "余量", lambda o: f"{number(o.fit['headroom_pct'])}%" if o.fit["headroom_pct"] >= 0 else "—"),  # not fitting: the row above says by how much
    ]
    if task == "inference":
        body += [
            row(
                "Speed per user",
                "单用户速度",
                lambda o: f"{number(o.speed['decode_tokens_per_s_per_seq'])} {turn.t('tokens/s', 'token/s')}",
            ),
            row("Total throughput", "总吞吐", lambda o: f"{number(o.speed['output_tokens_per_s_total'])} {turn.t('tokens/s', 'token/s')}"),
            row("Time to first token", "首 token 延迟", lambda o: f"{number(o.speed['ttft_ms'], 0)} {turn.t('ms', '毫秒')}"),
        ]
    elif task in TIMED_TRAINING:
        tokens = turn.slots.tokens
        en, zh = (
            (f"Time for {number(tokens)} tokens", f"训练 {number(tokens)} token 用时")
            if tokens
            else ("Time per 1B tokens", "每 10 亿 token 用时")
        )
        body.append(
            row(
                en,
                zh,
                lambda o: turn.t(f"{number(o.training['wall_clock_days'], 2)} days", f"{number(o.training['wall_clock_days'], 2)} 天"),
            )
        )
    body += [
        row(
            "BF16 dense per card", "单卡 BF16 稠密算力", lambda o: f"{number(o.gpu['bf16_tflops'])} TFLOPS" if o.gpu["bf16_tflops"] else "—"
        ),
        row("Link between cards", "卡间互联", lambda o: link(turn, o.gpu)),
        row("Purchase (whole option)", "整套采购价", lambda o: _priced(o, "purchase_price", "")),
        row("Cloud per hour", "云上每小时", lambda o: _priced(o, "cloud_price", turn.t("/h", "/小时"))),
        row("China", "国内可购", lambda o: turn.t(*CHINA_STATUS[o.gpu["china"]])),
    ]
    return table([""] + [o.label for o in opts], body)


def link(turn: Turn, gpu: dict) -> str:
    """GPU-to-GPU bandwidth (NVLink, Infinity Fabric, HCCS…) or PCIe only, in words of the user's language."""
    if gpu.get("nvlink_gbs"):
        return turn.t(f"direct link {number(gpu['nvlink_gbs'])} GB/s", f"卡间直连 {number(gpu['nvlink_gbs'])} GB/s")
    return turn.t("PCIe only", "仅 PCIe")


def _fit_text(turn: Turn, o: Option) -> str:
    if not o.fit:
        return o.needed or "—"
    shown = f"{turn.t(*VERDICT[o.fit['verdict']])} ({number(o.fit['total_per_gpu_gb'])} / {number(o.fit['gpu_capacity_gb'])} GB)"
    return shown + (f"; {o.needed}" if o.needed else "")


def _priced(o: Option, kind: str, suffix: str) -> str:
    price = o.price(kind)
    if not price or not o.count:
        return "—"
    each = money(price["amount"], price["currency"])
    total = money(o.total(kind), price["currency"])
    return (f"{o.count} × {each} = {total}" if o.count > 1 else total) + f"{suffix} ({price['date']})"
