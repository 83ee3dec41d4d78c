"""The first line of a spec answer for what was asked of the cards (``Ask.spec_fields_asked``, ``Ask.comparison_claim``):
"H200 memory bandwidth?" → the bandwidth first, then the card; "the L40S has more TFLOPS than the A100, right?" →
right or wrong with both figures, on the catalog's dense figure of the precision named. Wording from the package
text.yaml (section asked); every figure from compare_gpus' rows."""

from __future__ import annotations

from urllib.parse import urlparse

from advisor.markdown import money, number
from advisor.offline.tasks.specs.compare_view import link
from advisor.offline.tasks.tco import price_dates
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.fact_gaps import fact_gaps

WORDING = Wording("specs", "asked")
TB = 1000  # GB/s in a TB/s
TFLOPS_FIELDS = {"bf16_tflops": "BF16", "fp8_tflops": "FP8", "fp4_tflops": "FP4"}
ABSENT_MEANS_NONE = ("nvlink_gbs",)  # a row's empty link rate means the card has none (PCIe only), not that it is unknown


def _interconnect(turn: Turn, gpu: dict) -> str:
    """The card's links as the catalog lists them (English), or its card-to-card rate in words (Chinese)."""
    return gpu["interconnect"] if turn.language == "en" else link(turn, gpu)


def figure(turn: Turn, gpu: dict, field: str, sparse: bool = True) -> str:
    """One catalog figure of ``gpu`` in words: its unit, the memory type, the sparse figure beside a dense one (not
    in a comparison, which is made on the dense figures alone)."""
    value = gpu.get(field)
    if value is None:  # no link rate is a PCIe-only card, unless no source gives the rate (the row's ``unknown``)
        known_absent = field in ABSENT_MEANS_NONE and field not in gpu.get("unknown", ())
        return WORDING.say(turn, f"figure.{field}_none" if known_absent else "figure.none")
    if field in TFLOPS_FIELDS:
        figures = {"value": number(value), "precision": TFLOPS_FIELDS[field]}
        if sparse and gpu.get("sparsity_2_4"):
            return WORDING.say(turn, "figure.tflops_sparse", sparse=number(2 * value), **figures)
        return WORDING.say(turn, "figure.tflops", **figures)
    if field == "nvlink_gbs":
        return WORDING.say(turn, "figure.nvlink_gbs", value=number(value))
    if field == "bandwidth_gbs" and value >= TB:
        return WORDING.say(turn, "figure.bandwidth_tb", value=number(value), tb=number(value / TB, 2))
    return WORDING.say(turn, f"figure.{field}", value=number(value), memory_type=gpu.get("memory_type", ""))


def one_card(turn: Turn, gpu: dict, estimate: dict | None = None) -> str:
    """The figures asked of one card, each first in its own line; "" when the question names none. A figure the row
    lists as unverified (knowledge/fact_gaps.yaml) says so first; the launch price and the cooling have their own lines.
    ``estimate``: estimate_server_price's card range, for a launch price the catalog lacks."""
    return "\n\n".join(_one(turn, gpu, field, estimate) for field in turn.ask.spec_fields_asked)


def across(turn: Turn, gpus: list[dict]) -> str:
    """The figures asked of several cards, each first in its own line: which card leads on it, by how much, with both
    figures ("which has the faster NVLink, H100 SXM or PCIe?" leads with the link, not the memory bandwidth); a figure
    that is no one number (the cooling, the network adapter) is each card's own line. "" when none is asked."""
    lines = []
    for field in turn.ask.spec_fields_asked:
        if field in OWN_LINE or field == "launch_price":
            lines += [_one(turn, gpu, field) for gpu in gpus]
            continue
        name = WORDING.say(turn, f"name.{field}")
        known = [gpu for gpu in gpus if gpu.get(field) is not None]
        missing = [gpu["name"] for gpu in gpus if gpu.get(field) is None]
        if len(known) < 2:
            lines += [_one(turn, gpu, field) for gpu in gpus]
            continue
        lower_leads = field in LOWER_LEADS
        ranked = sorted(known, key=lambda gpu: float(gpu[field]), reverse=not lower_leads)
        best, runner = ranked[0], ranked[1]
        figures = {"name": name, "best": best["name"], "other": runner["name"], "best_figure": figure(turn, best, field, sparse=False),
                   "other_figure": figure(turn, runner, field, sparse=False)}  # fmt: skip
        if float(best[field]) == float(runner[field]):
            line = WORDING.say(turn, "across.equal", **figures)
        else:
            high, low = max(float(best[field]), float(runner[field])), min(float(best[field]), float(runner[field]))
            line = WORDING.say(turn, "across.lower" if lower_leads else "across.higher", ratio=number(high / low, 2), **figures)
        rest = [f"{gpu['name']} {figure(turn, gpu, field, sparse=False)}" for gpu in ranked[2:]]
        if rest:
            line += " " + WORDING.say(turn, "across.rest", rest=WORDING.say(turn, "across.comma").join(rest))
        if missing:
            line += " " + WORDING.say(turn, "across.missing", name=name, missing=WORDING.say(turn, "across.comma").join(missing))
        lines.append(line)
    return "\n\n".join(line[:3].upper() + line[3:] if line.startswith("**") else line for line in lines)  # a figure's name opens a sentence


LOWER_LEADS = ("tdp_w",)  # figures where the lower one is the card's edge (less board power)


def _one(turn: Turn, gpu: dict, field: str, estimate: dict | None = None) -> str:
    if field == "launch_price":
        return launch_price(turn, gpu, estimate)
    if field in OWN_LINE:
        return OWN_LINE[field](turn, gpu)
    key = "one_unverified" if field in gpu.get("unverified", ()) and gpu.get(field) is not None else "one"
    return WORDING.say(turn, key, figure=figure(turn, gpu, field), name=WORDING.say(turn, f"name.{field}"), card=gpu["name"])


def _source(price: dict) -> str:
    """The page a price was read from, as a link named by its site."""
    url = price.get("source_url")
    return f"[{urlparse(url).netloc.removeprefix('www.')}]({url})" if url else price["source"]


def launch_price(turn: Turn, gpu: dict, estimate: dict | None = None) -> str:
    """The catalog's purchase price as the launch price when it is dated in the card's launch year, with its age; a later
    price is said to be no launch price; with no price, the dated estimate of one card (``estimate``, estimate_server_price's
    card range) when one exists, else no price said plainly. A page the gaps record as a secondary report is said to be one."""
    price = gpu.get("purchase_price")
    if not price:
        return _estimated(turn, gpu, estimate) if estimate else WORDING.say(turn, "launch_price.none", card=gpu["name"])
    key = "launch_price.at_launch" if str(price["date"])[:4] == str(gpu["launch_year"]) else "launch_price.later"
    secondary = WORDING.say(turn, "launch_price.secondary") if fact_gaps().secondary_price(gpu["id"]) else ""
    return WORDING.say(turn, key, price=money(price["amount"], price["currency"]), card=gpu["name"], date=price["date"],
                       age=price_dates.age_of(turn, price["date"]), source=_source(price) + secondary, year=gpu["launch_year"])  # fmt: skip


def _estimated(turn: Turn, gpu: dict, card: dict) -> str:
    """No launch price published: the dated estimate of one card, its range, date and how it is derived, called an estimate."""
    low, high = money(card["low"], card["currency"]), money(card["high"], card["currency"])
    price = low if card["low"] == card["high"] else WORDING.say(turn, "launch_price.range", low=low, high=high)
    derivation = turn.text(card["derivation"]) if card.get("derivation") else ""
    return WORDING.say(turn, "launch_price.estimate", card=gpu["name"], price=price, date=card["date"], derivation=derivation,
                       age=price_dates.age_of(turn, card["date"]))  # fmt: skip


def cooling(turn: Turn, gpu: dict) -> str:
    """How the card is cooled; unverified (the reference gives only the form factor) said first, as the row marks it."""
    kind = gpu.get("cooling")
    if kind is None:
        return WORDING.say(turn, "cooling.none", card=gpu["name"], form_factor=gpu["form_factor"])
    if "cooling" not in gpu.get("unverified", ()):
        return WORDING.say(turn, f"cooling.known.{kind}", card=gpu["name"])
    return WORDING.say(turn, "cooling.unverified", card=gpu["name"], label=WORDING.say(turn, f"cooling.label.{kind}"), form_factor=gpu["form_factor"])


def network(turn: Turn, gpu: dict) -> str:
    """"does the H100 PCIe come with ConnectX-7?": a network adapter is no figure of the card; its catalog interconnect says
    whether one is part of it (a Blackwell board lists its ConnectX), else the NIC is the server's."""
    if turn.ask.whole_server or turn.ask.node_count or turn.slots.servers:  # "do two H100 servers need a ConnectX-7?"
        return ""  # asks the servers' network, which no line about the card answers
    key = "network.on_card" if NIC_WORD in gpu["interconnect"].lower() else "network.server"
    return WORDING.say(turn, key, card=gpu["name"], interconnect=_interconnect(turn, gpu))


NIC_WORD = "connectx"  # how the catalog's interconnect line names a network adapter on the board
OWN_LINE = {"cooling": cooling, "network": network}  # figures asked that are no one number of the row


def claim(turn: Turn, gpus: list[dict]) -> str:
    """Right or wrong on the comparison stated between two of ``gpus``, with both figures; "" when none was stated."""
    stated = turn.ask.comparison_claim
    by_id = {gpu["id"]: gpu for gpu in gpus}
    if stated is None or stated.subject not in by_id or stated.other not in by_id:
        return ""
    subject, other, field = by_id[stated.subject], by_id[stated.other], stated.field
    name = WORDING.say(turn, f"name.{field}")
    missing = [gpu["name"] for gpu in (subject, other) if gpu.get(field) is None]
    if missing:
        return WORDING.say(turn, "claim.unknown", name=name, missing=missing[0])
    figures = {"subject": subject["name"], "other": other["name"], "name": name,
               "subject_figure": figure(turn, subject, field, sparse=False), "other_figure": figure(turn, other, field, sparse=False)}  # fmt: skip
    ours, theirs = float(subject[field]), float(other[field])
    if ours == theirs:
        return WORDING.say(turn, "claim.equal", **figures)
    actual = "more" if ours > theirs else "less"
    if actual == stated.direction:
        return WORDING.say(turn, "claim.right", direction=WORDING.say(turn, f"claim.direction.{actual}"), **figures)
    return WORDING.say(turn, "claim.wrong", direction=WORDING.say(turn, f"claim.direction.{stated.direction}"),
                       actual=WORDING.say(turn, f"claim.direction.{actual}"), **figures)  # fmt: skip
