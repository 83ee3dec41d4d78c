"""How a comparison reads: the verdict with its reasons, and the side-by-side table of every option.

Only tool results are shown: the memory estimate's verdict and headroom, the throughput or training-time
estimate, and the catalog's per-card figures and dated prices (the whole option costs cards × price).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.offline.wording import Wording
from advisor.labels import CHINA_STATUS, VERDICT
from advisor.markdown import money, number, table
from advisor.offline.tasks.recommend import mainland
from advisor.offline.tasks.serving.serving_floor import chat_floor_tokens_per_s
from knowledge.bilingual import Text
from knowledge.serving_precision import serving_precision
from tools.gpu_specs import CHINA_BUYABLE, CHINA_USED_ONLY
from advisor.offline.turn import Turn
from tools.cost.token_cost import TokenCostRequest, token_cost

WORDING = Wording("specs", "compare_view")

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
    sized_like_for_like: bool = False  # no count was named: the fewest cards that hold the workload were taken
    machine: dict | None = None  # estimate_server_price at this count: the cards plus the machine they go in
    pcie: tuple[str, dict | None] | None = None  # sold on boards only: its PCIe model's name and that machine priced
    precision: str | None = None  # the weight format it was sized in (None: 16-bit), down the card's ladder when serving

    @property
    def host(self) -> float | None:
        """The price of the machine around the cards (a desktop, a 4-GPU workstation, a GPU server), when one was priced
        from the catalog's card price; None for a published whole-machine quote or a part sold as its own machine."""
        whole = (self.machine or {}).get("whole")
        return self.machine.get("host") if whole and whole["basis"] == "catalog" and self.machine.get("host") else None

    @property
    def sold_in(self) -> int | None:
        """The cards of the smallest machine the part is sold in, when more than the option's count (an SXM card comes on
        a 4- or 8-GPU board): the price to buy is that machine's; None when the count itself is on sale."""
        gpus = (self.machine or {}).get("gpus")
        return gpus if gpus and self.count and gpus > self.count else None

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
        """The catalog's price of one card; to buy, a part with none (no list price) takes the midpoint of the sourced
        card estimate its machine was priced with, so it is weighed to buy like the others, not only to rent."""
        listed = self.gpu.get(kind)
        card = (self.machine or {}).get("card")
        if listed or kind != "purchase_price" or not card:
            return listed
        return {"amount": (card["low"] + card["high"]) / 2, "currency": card["currency"], "date": card.get("date"), "estimated": True}

    def total(self, kind: str) -> float | None:
        """The whole option's price: to buy, the whole configuration (cards + the machine they need, or a published
        quote for the machine) when it was priced; to rent, per card × cards."""
        price = self.price(kind)
        whole = (self.machine or {}).get("whole")
        if kind == "purchase_price" and whole and whole["currency"] == (price or {}).get("currency"):
            return (whole["low"] + whole["high"]) / 2
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


# "cheapest": the lowest price itself, not the most speed for the money ("best value")


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
            notes.append(WORDING.say(turn, "compare_view_phrases.verdict.does_not_hold_the_workload", label=o.label, need=need))
    if not fitting:
        lead = WORDING.say(turn, "compare_view_phrases.verdict.no_option_fits_as_stated")
        return "\n".join([lead, *(f"- {line}" for line in notes)])
    # a mainland buyer is picked a part sold there: new, or (the user named it) on the used market, where the only units are
    buyable = [o for o in fitting if o.gpu.get("china") in CHINA_BUYABLE | CHINA_USED_ONLY] if mainland.china_buyer(turn) else fitting
    used = [o.label for o in buyable if o.gpu.get("china") in CHINA_USED_ONLY]
    if used:
        notes.append(WORDING.say(turn, "compare_view_phrases.verdict.mainland_used_only", used=turn.t(", ", "、").join(used)))
    if buyable and len(buyable) < len(fitting):  # the others stay in the table
        barred = turn.t(", ", "、").join(o.label for o in fitting if o not in buyable)
        notes.append(WORDING.say(turn, "compare_view_phrases.verdict.mainland_barred", barred=barred))
        fitting = buyable
        if len(fitting) == 1:
            lead = WORDING.say(turn, "compare_view_phrases.verdict.choose_sold_in_mainland", label=fitting[0].label, plan=fitting[0].plan)
            return "\n".join([lead + _formats(turn, opts), *(f"- {line}" for line in notes)])
    if len(fitting) == 1:
        only = fitting[0]
        lead = WORDING.say(turn, "compare_view_phrases.verdict.choose_it_is_the_only", label=only.label, plan=only.plan)
        return "\n".join([lead + _formats(turn, opts), *(f"- {line}" for line in notes)])
    kind = _cost_kind(fitting)
    cheaper = _pick_best(fitting, lambda o: o.total(kind), higher=False, close=0.0) if kind else None
    faster = _pick_best(fitting, _speed, higher=True, close=SAME_SPEED)
    roomier = _pick_best(fitting, lambda o: o.fit["headroom_pct"], higher=True, close=0.0)
    if roomier and any(roomier.fit["headroom_pct"] - o.fit["headroom_pct"] < SAME_HEADROOM for o in fitting if o is not roomier):
        roomier = None
    lines = [_trade_offs(turn, o, fitting, kind, cheaper, faster, roomier) for o in fitting]
    if faster is None and all(_speed(o) is not None for o in fitting):
        lines.append(WORDING.say(turn, "compare_view_phrases.verdict.speed_is_about_the_same"))
    return "\n".join([_lead(turn, fitting, kind, cheaper, faster, roomier) + _formats(turn, opts), *(f"- {line}" for line in lines + notes)])


def _format_label(precision: str | None):
    """A weight format's name in both languages: its serving rule's label, BF16 for the 16-bit default."""
    rules = serving_precision()
    if precision is None:
        return rules.quality_first.label
    rule = next((r for r in rules.rules if r.precision == precision), None)
    return rule.label if rule is not None else Text(en=precision.upper(), zh=precision.upper())


def _formats(turn: Turn, opts: list[Option]) -> str:
    """When the options are sized in different weight formats (a GeForce stepped down to 4-bit, an A100 in BF16), the
    verdict names each side's format, since the speeds and fits beside it rest on it; "" when they share one."""
    sized = [o for o in opts if o.fit]
    if len({o.precision for o in sized}) < 2:
        return ""
    each = turn.t("; ", "；").join(WORDING.say(turn, "compare_view_phrases.verdict.format_of", label=o.label, format=turn.text(_format_label(o.precision)))
                                  for o in sized)  # fmt: skip
    return WORDING.say(turn, "compare_view_phrases.verdict.formats", each=each)


def _lead(turn: Turn, fitting: list[Option], kind: str | None, cheaper: Option | None, faster: Option | None, roomier: Option | None) -> str:
    if cheaper and cheaper is faster:
        return _cheaper_and_faster(turn, fitting, kind, cheaper, roomier)
    wanted = turn.slots.objective
    if cheaper and faster and wanted in ("cheapest", "cheapest_cloud", "fastest"):  # "which is better value", "which is faster": the ranking asked for
        turn.slots.mark("objective")
        return _asked_ranking(turn, wanted, fitting, kind, cheaper, faster)
    if cheaper and faster:  # one is cheaper, the other faster: the answer still picks one for the job stated
        return _decided(turn, fitting, kind, cheaper, faster)
    best = cheaper or faster or roomier or min(fitting, key=lambda o: o.count)
    why = WORDING.say(turn, "compare_view_phrases.lead.cheaper") if best is cheaper else WORDING.say(turn, "compare_view_phrases.lead.faster") if best is faster else (
        WORDING.say(turn, "compare_view_phrases.lead.more_memory_headroom") if best is roomier else WORDING.say(turn, "compare_view_phrases.lead.fewest_cards"))  # fmt: skip
    return WORDING.say(turn, "compare_view_phrases.lead.choose_all_options_fit", label=best.label, why=why)


def _cheaper_and_faster(turn: Turn, fitting: list[Option], kind: str, pick: Option, roomier: Option | None) -> str:
    """One option both cheaper and faster: the pick, both sides with their figures, and what would turn it: the other's
    larger memory headroom when it has one, else the price at which the other would match the pick's speed for the money."""
    other = next(o for o in fitting if o is not pick)
    trade = "compare_view_phrases.trade_offs.faster_vs_tokens_s_per" if pick.speed else "compare_view_phrases.trade_offs.faster_vs_days"
    faster = WORDING.say(turn, trade, mine=_speed_value(pick), vs=_speed_value(other))
    if roomier is other:
        flip = WORDING.say(turn, "compare_view_phrases.lead.flip_roomier", other=other.label, room=number(other.fit["headroom_pct"]),
                           pick_room=number(pick.fit["headroom_pct"]))  # fmt: skip
    else:
        matching = pick.total(kind) * _speed(other) / _speed(pick)  # the other's price at which both buy the same speed per unit of money
        flip = WORDING.say(turn, "compare_view_phrases.lead.flip_price", other=other.label, price=money(matching, other.price(kind)["currency"]))
    costs = WORDING.say(turn, "compare_view_phrases.lead.costs_buy" if kind == "purchase_price" else "compare_view_phrases.lead.costs_rent",
                        mine=_cost_text(pick, kind), vs=_cost_text(other, kind))  # fmt: skip
    return WORDING.say(turn, "compare_view_phrases.lead.choose_cheaper_and_faster", label=pick.label, other=other.label, costs=costs,
                       faster=faster, flip=flip)  # fmt: skip


def _decided(turn: Turn, fitting: list[Option], kind: str, cheaper: Option, faster: Option) -> str:
    """A pick, its reason and its number, when one option is cheaper and another faster and no ranking was asked: a
    serving option whose users stream below the chat floor (knowledge/traffic.yaml) loses to one above it; otherwise
    the lower cost per million output tokens at on-demand rent wins (serving), else the most speed for the money."""
    if cheaper.speed and faster.speed:
        floor = chat_floor_tokens_per_s()
        if _speed(cheaper) < floor <= _speed(faster):
            return WORDING.say(turn, "compare_view_phrases.lead.choose_faster_floor", label=faster.label, other=cheaper.label,
                               slow=number(_speed(cheaper)), fast=number(_speed(faster)), floor=number(floor))  # fmt: skip
        costs = {id(o): cost for o in fitting if (cost := _per_million(o)) is not None}
        if len(costs) == len(fitting) and len({o.price("cloud_price")["currency"] for o in fitting}) == 1:
            pick, other = sorted(fitting, key=lambda o: costs[id(o)])[:2]
            currency = pick.price("cloud_price")["currency"]
            trait = WORDING.say(turn, "compare_view_phrases.asked_ranking.cheaper" if other is cheaper else "compare_view_phrases.asked_ranking.faster")
            return WORDING.say(turn, "compare_view_phrases.lead.choose_per_token", label=pick.label, other=other.label, trait=trait,
                               cost=money(costs[id(pick)], currency), other_cost=money(costs[id(other)], currency),
                               speed=number(_speed(pick)), other_speed=number(_speed(other)))  # fmt: skip
    return _asked_ranking(turn, "value", fitting, kind, cheaper, faster)


def _per_million(o: Option) -> float | None:
    """The option's cost per million output tokens at on-demand rent and the load it was timed at; None without a rent."""
    price = o.price("cloud_price")
    if not (price and o.speed and o.count and o.speed.get("output_tokens_per_s_total")):
        return None
    cost = token_cost(TokenCostRequest(price_per_gpu_hour=price["amount"], gpus=o.count, output_tokens_per_s=o.speed["output_tokens_per_s_total"]))
    return cost.per_million_tokens


def _asked_ranking(turn: Turn, wanted: str, fitting: list[Option], kind: str, cheaper: Option, faster: Option) -> str:
    """The fastest, the cheapest, or the most speed for the money ("best value")."""
    if wanted == "fastest":
        return WORDING.say(turn, "compare_view_phrases.asked_ranking.choose_faster_is_cheaper", label=faster.label, label_2=cheaper.label)
    if turn.ask.price_only:
        return WORDING.say(turn, "compare_view_phrases.asked_ranking.choose_cheaper_is_faster", label=cheaper.label, label_2=faster.label)
    by_value = sorted(fitting, key=lambda o: _speed(o) / o.total(kind), reverse=True)
    pick, other = by_value[0], by_value[1]
    more = round((_speed(pick) / pick.total(kind)) / (_speed(other) / other.total(kind)) * 100 - 100)
    trait = WORDING.say(turn, "compare_view_phrases.asked_ranking.cheaper" if other is cheaper else "compare_view_phrases.asked_ranking.faster")
    flip = (WORDING.say(turn, "lines.flip_if_cheaper", other=other.label, other_cost=_cost_text(other, kind), pick_cost=_cost_text(pick, kind)) if other is cheaper
            else WORDING.say(turn, "lines.flip_if_faster", other=other.label, speeds=WORDING.say(
                turn, "lines.speeds_tokens" if pick.speed else "lines.speeds_days", mine=_speed_value(pick), vs=_speed_value(other))))  # fmt: skip
    return WORDING.say(turn, "lines.choose_for_value", pick=pick.label, more=more, other=other.label, trait=trait, flip=flip)


def _trade_offs(turn: Turn, o: Option, fitting: list[Option], kind: str | None, cheaper, faster, roomier) -> str:
    others = [x for x in fitting if x is not o]
    pros, cons = [], []
    if o is cheaper:
        mine, vs = _cost_text(o, kind), ", ".join(_cost_text(x, kind) for x in others)
        pros.append(WORDING.say(turn, "compare_view_phrases.trade_offs.cheaper_to_buy_vs", mine=mine, vs=vs) if kind == "purchase_price"
                    else WORDING.say(turn, "compare_view_phrases.trade_offs.cheaper_to_rent_h_vs", mine=mine, vs=vs))  # fmt: skip
    if o is faster:
        mine, vs = _speed_value(o), ", ".join(_speed_value(x) for x in others)
        pros.append(WORDING.say(turn, "compare_view_phrases.trade_offs.faster_vs_tokens_s_per", mine=mine, vs=vs) if o.speed
                    else WORDING.say(turn, "compare_view_phrases.trade_offs.faster_vs_days", mine=mine, vs=vs))  # fmt: skip
    room = number(o.fit["headroom_pct"])
    if o.count == 1:
        pros.append(WORDING.say(turn, "compare_view_phrases.trade_offs.fits_on_one_card_with", room=room))
    elif o is roomier:
        pros.append(WORDING.say(turn, "compare_view_phrases.trade_offs.more_headroom", room=room))
    if o.count > 1 and not o.gpu.get("nvlink_gbs"):
        cons.append(WORDING.say(turn, "compare_view_phrases.trade_offs.needs_over_pcie_no_direct", plan=o.plan))
    if o.precision in serving_precision().lossy():  # 4-bit: its 16-bit (and 8-bit) weights do not fit these cards
        cons.append(WORDING.say(turn, "compare_view_phrases.trade_offs.lossy_format", format=turn.text(_format_label(o.precision))))
    if o.fit["verdict"] == "tight":
        cons.append(WORDING.say(turn, "compare_view_phrases.trade_offs.tight_fit_headroom", room=room))
    if turn.slots.region == "cn" and o.gpu["china"] in ("export-controlled", "not-sold"):
        cons.append(turn.t(*CHINA_STATUS[o.gpu["china"]]))
    text = f"**{o.label}**" + turn.t(": ", "：") + turn.t("; ", "；").join(pros or [WORDING.say(turn, "compare_view_phrases.trade_offs.fits", plan=o.plan)])
    return text + (WORDING.say(turn, "compare_view_phrases.trade_offs.but") + turn.t("; ", "；").join(cons) if cons else "")


def sold_in_notes(turn: Turn, opts: list[Option]) -> str:
    """"1× A100 SXM": no machine holds one SXM card, so its price to buy is the smallest machine it is sold in, said so
    (a list, "" when every option's count is on sale; it goes after the verdict's reasons and any mainland warning)."""
    lines = []
    for o in (o for o in opts if o.sold_in and o.total("purchase_price")):
        currency = o.price("purchase_price")["currency"]
        line = WORDING.say(turn, "compare_view_phrases.verdict.sold_in", name=o.name, gpus=o.sold_in, price=money(o.total("purchase_price"), currency))
        if o.pcie:
            pcie, machine = o.pcie
            line += turn.t(" ", "") + (WORDING.say(turn, "compare_view_phrases.verdict.sold_in_pcie", pcie=pcie, count=o.count, host=turn.text(machine["host_label"]),
                                       price=money((machine["whole"]["low"] + machine["whole"]["high"]) / 2, currency))  # fmt: skip
                           if machine and machine.get("host_label") else WORDING.say(turn, "compare_view_phrases.verdict.sold_in_pcie_unpriced", pcie=pcie))
        lines.append(line)
    return "\n".join(f"- {line}" for line in lines)


def _equal_specs(turn: Turn, opts: list[Option]) -> list[str]:
    """Per-card figures the options share are said to be equal, never "more" for one of them."""
    lines = []
    for key, en, zh, unit in (
        ("memory_gb", *WORDING.pair("compare_view_phrases.equal_specs.memory_per_card"), "GB"),
        ("bandwidth_gbs", *WORDING.pair("compare_view_phrases.equal_specs.bandwidth_per_card"), "GB/s"),
    ):
        values = {o.gpu[key] for o in opts}
        if len(values) == 1:
            shown = number(values.pop())
            lines.append(WORDING.say(turn, "lines.same_each", what=turn.t(en, zh), shown=shown, unit=unit))
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
        row(*WORDING.pair("compare_view_phrases.side_by_side.plan"), lambda o: o.plan or "—"),
        row(*WORDING.pair("compare_view_phrases.side_by_side.memory_per_card"), lambda o: f"{number(o.gpu['memory_gb'])} GB"),
        row(*WORDING.pair("compare_view_phrases.side_by_side.fits"), lambda o: _fit_text(turn, o)),
        row(*WORDING.pair("compare_view_phrases.side_by_side.headroom"), lambda o: f"{number(o.fit['headroom_pct'])}%" if o.fit["headroom_pct"] >= 0 else "—"),  # not fitting: the row above says by how much
    ]
    if task == "inference":
        body += [
            row(*WORDING.pair("compare_view_phrases.side_by_side.weights"), lambda o: o.fit["weights_precision"].upper()),  # FP8 on one card, BF16 on another
            row(
                *WORDING.pair("compare_view_phrases.side_by_side.speed_per_user"),
                lambda o: f"{number(o.speed['decode_tokens_per_s_per_seq'])} {turn.t('tokens/s', 'token/s')}",
            ),
            row(*WORDING.pair("compare_view_phrases.side_by_side.total_throughput"), lambda o: f"{number(o.speed['output_tokens_per_s_total'])} {turn.t('tokens/s', 'token/s')}"),
            row(*WORDING.pair("compare_view_phrases.side_by_side.time_to_first_token"), lambda o: f"{number(o.speed['ttft_ms'], 0)} {WORDING.say(turn, 'lines.ms')}"),
        ]
    elif task in TIMED_TRAINING:
        tokens = turn.slots.tokens
        en, zh = (
            WORDING.both("compare_view_phrases.side_by_side.time_for_tokens", tokens=number(tokens))
            if tokens
            else WORDING.pair("compare_view_phrases.side_by_side.time_per_1b_tokens")
        )
        body.append(
            row(
                en,
                zh,
                lambda o: WORDING.say(turn, "compare_view_phrases.side_by_side.days", wall_clock_days=number(o.training['wall_clock_days'], 2)),
            )
        )
    body += [
        row(
            *WORDING.pair("compare_view_phrases.side_by_side.bf16_dense_per_card"), lambda o: f"{number(o.gpu['bf16_tflops'])} TFLOPS" if o.gpu["bf16_tflops"] else "—"
        ),
        row(*WORDING.pair("compare_view_phrases.side_by_side.link_between_cards"), lambda o: link(turn, o.gpu)),
        row(*WORDING.pair("compare_view_phrases.side_by_side.purchase_whole_option"), lambda o: _priced(turn, o, "purchase_price", "")),
        row(*WORDING.pair("compare_view_phrases.side_by_side.cloud_per_hour"), lambda o: _priced(turn, o, "cloud_price", WORDING.say(turn, "compare_view_phrases.side_by_side.h"))),
    ]
    if turn.china_matters:  # a card's China status only where China's rules bear on the choice
        body.append(row(*WORDING.pair("compare_view_phrases.side_by_side.china"), lambda o: turn.t(*CHINA_STATUS[o.gpu["china"]])))
    return table([""] + [o.label for o in opts], body)


def link(turn: Turn, gpu: dict) -> str:
    """GPU-to-GPU bandwidth (NVLink, Infinity Fabric, HCCS…) or PCIe only, in words of the user's language."""
    if gpu.get("nvlink_gbs"):
        return WORDING.say(turn, "compare_view_phrases.link.direct_link_gb_s", nvlink_gbs=number(gpu['nvlink_gbs']))
    return WORDING.say(turn, "compare_view_phrases.link.pcie_only")


def _fit_text(turn: Turn, o: Option) -> str:
    if not o.fit:
        return o.needed or "—"
    shown = f"{turn.t(*VERDICT[o.fit['verdict']])} ({number(o.fit['total_per_gpu_gb'])} / {number(o.fit['gpu_capacity_gb'])} GB)"
    return shown + (f"; {o.needed}" if o.needed else "")


def _priced(turn: Turn, o: Option, kind: str, suffix: str) -> str:
    price = o.price(kind)
    if not price or not o.count:
        return "—"
    each = money(price["amount"], price["currency"])
    total = money(o.total(kind), price["currency"])
    bought = o.sold_in if kind == "purchase_price" else None
    sold_in = WORDING.say(turn, "compare_view_phrases.side_by_side.sold_in", gpus=bought) if bought else ""
    if kind == "purchase_price" and o.host is not None:  # the cards and the machine they go in, each priced
        host = f"{turn.text(o.machine['host_label'])} {money(o.host, price['currency'])}"
        return f"{sold_in}{bought or o.count} × {each} + {host} = {total} ({price['date']}; {o.machine['host_date']})"
    if bought:  # a published quote for the smallest machine the part comes in
        return f"{sold_in}{total} ({o.machine['whole']['date']})"
    return (f"{o.count} × {each} = {total}" if o.count > 1 else total) + f"{suffix} ({price['date']})"
