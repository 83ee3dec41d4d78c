"""The first line of a spec answer for what was asked of the cards (``Ask.spec_fields_asked``, ``Ask.comparison_claim``):
"H200 memory bandwidth?" → the bandwidth first, then the card; "the L40S has more TFLOPS than the A100, right?" →
right or wrong with both figures, on the catalog's dense figure of the precision named. Wording from the package
text.yaml (section asked); every figure from compare_gpus' rows."""

from __future__ import annotations

from urllib.parse import urlparse

from advisor.markdown import money, number
from advisor.offline.tasks.tco import price_dates
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.fact_gaps import fact_gaps

WORDING = Wording("specs", "asked")
TB = 1000  # GB/s in a TB/s
TFLOPS_FIELDS = {"bf16_tflops": "BF16", "fp8_tflops": "FP8", "fp4_tflops": "FP4"}


def figure(turn: Turn, gpu: dict, field: str, sparse: bool = True) -> str:
    """One catalog figure of ``gpu`` in words: its unit, the memory type, the sparse figure beside a dense one (not
    in a comparison, which is made on the dense figures alone)."""
    value = gpu.get(field)
    if value is None:
        return WORDING.say(turn, "figure.none")
    if field in TFLOPS_FIELDS:
        figures = {"value": number(value), "precision": TFLOPS_FIELDS[field]}
        if sparse and gpu.get("sparsity_2_4"):
            return WORDING.say(turn, "figure.tflops_sparse", sparse=number(2 * value), **figures)
        return WORDING.say(turn, "figure.tflops", **figures)
    if field == "bandwidth_gbs" and value >= TB:
        return WORDING.say(turn, "figure.bandwidth_tb", value=number(value), tb=number(value / TB, 2))
    return WORDING.say(turn, f"figure.{field}", value=number(value), memory_type=gpu.get("memory_type", ""))


def one_card(turn: Turn, gpu: dict, estimate: dict | None = None) -> str:
    """The figures asked of one card, each first in its own line; "" when the question names none. A figure the row
    lists as unverified (knowledge/fact_gaps.yaml) says so first; the launch price and the cooling have their own lines.
    ``estimate``: estimate_server_price's card range, for a launch price the catalog lacks."""
    return "\n\n".join(_one(turn, gpu, field, estimate) for field in turn.ask.spec_fields_asked)


def _one(turn: Turn, gpu: dict, field: str, estimate: dict | None) -> str:
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


OWN_LINE = {"cooling": cooling}  # figures asked that are no one number of the row


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
