"""Which GPUs are considered (and what is left out, and why), and the notes under the options."""

from __future__ import annotations

from typing import NamedTuple

from knowledge.bilingual import Text
from knowledge.catalog import Catalog
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from knowledge.wording import shipped
from tools.gpu_specs import CHINA_BUYABLE
from tools.recommend.configs import RACK_GPUS, rack_name, sold_as, usable_fraction
from tools.recommend.schema import Option, RecommendRequest
from tools.recommend.speed import load, sized_by_speed
from tools.serving.setup import ENGINE_LABELS

TEXT = shipped("recommend_text.yaml")


def _names(gpus: list[GPU], limit: int = 8) -> tuple[str, str]:
    names = [g.name for g in gpus]
    more = len(names) > limit
    (joiner_en, joiner_zh), (more_en, more_zh) = TEXT.pair("names.joiner"), TEXT.pair("names.more")
    return joiner_en.join(names[:limit]) + (more_en if more else ""), joiner_zh.join(names[:limit]) + (more_zh if more else "")


def for_team(request: RecommendRequest) -> bool:
    return request.task == "inference" and (request.team or load(request) > 1)


def china_buyer(request: RecommendRequest) -> bool:
    """Buying in mainland China: said so, ranked for it, or a budget in yuan."""
    return request.region == "cn" or request.objective == "china" or (request.budget is not None and request.currency.upper() in ("CNY", "RMB"))


CHINA_MARKET = {"china-variant", "second-hand", "domestic"}  # made for, or only traded in, mainland China


def buying_outside_china(request: RecommendRequest) -> bool:
    """A dollar budget or price and no word of China: an international buyer, for whom H20 or Ascend are not options."""
    return not china_buyer(request) and request.currency.upper() == "USD"


class Withheld(NamedTuple):
    """Parts a buyer's market rules out, with the line that names those of them the answer would otherwise have offered
    (``{names}`` left to fill): the line is said only for those, never as a list of every barred part."""

    gpus: list[GPU]
    en: str
    zh: str


def withheld_line(group: Withheld, offered: list[GPU]) -> Text | None:
    """The group's line naming the parts of it that would otherwise have been offered; None when none would."""
    ids = {g.id for g in offered}
    named = [g for g in group.gpus if g.id in ids]
    if not named:
        return None
    names_en, names_zh = _names(named)
    return Text(en=group.en.format(names=names_en), zh=group.zh.format(names=names_zh))


def candidates(request: RecommendRequest, catalog: Catalog) -> tuple[list[GPU], list[Text], list[Withheld]]:
    """The parts sized, the lines saying what else was left out, and the parts the buyer's market rules out (named in
    the answer only when one of them would otherwise have been offered: ``withheld_line``)."""
    gpus = [catalog.gpu(name) for name in request.gpus] if request.gpus else list(catalog.gpus)
    gpus = list({g.id: g for g in gpus}.values())
    excluded: list[Text] = []
    withheld: list[Withheld] = []

    def drop(left_out: list[GPU], en: str, zh: str) -> None:
        nonlocal gpus
        if left_out:
            names_en, names_zh = _names(left_out)
            excluded.append(Text(en=en.format(names=names_en), zh=zh.format(names=names_zh)))
            gone = {g.id for g in left_out}  # by id: comparing whole GPU models field by field cost more than the sizing
            gpus = [g for g in gpus if g.id not in gone]

    def withhold(left_out: list[GPU], en: str, zh: str) -> None:
        nonlocal gpus
        if left_out:
            withheld.append(Withheld(left_out, en, zh))
            gone = {g.id for g in left_out}
            gpus = [g for g in gpus if g.id not in gone]

    if china_buyer(request):
        barred = [g for g in gpus if g.china not in CHINA_BUYABLE]
        for rule in dict.fromkeys(g.china_rule.rule for g in barred):  # one line per rule, so the answer says which applies
            first = next(g.china_rule for g in barred if g.china_rule.rule == rule)
            line = fact_note("china_excluded", rule=Text(en=first.label_en, zh=first.label_zh))
            # a part the user named is said to be barred whatever it would have been; the rest only when it would lead a tier
            (drop if request.gpus else withhold)([g for g in barred if g.china_rule.rule == rule], line.en, line.zh)
    elif buying_outside_china(request) and not request.gpus:
        line = fact_note("china_market_excluded", names="{names}")
        withhold([g for g in gpus if g.china in CHINA_MARKET], line.en, line.zh)
    if request.task != "inference":
        drop([g for g in gpus if g.inference_only], *TEXT.pair("excluded.inference_only"))
    elif for_team(request) and (macs := [g for g in gpus if sold_as(g) == "apple"]):
        users = load(request)
        who = TEXT.text("excluded.users", users=users) if users > 1 else TEXT.text("excluded.team")
        gpus = [g for g in gpus if sold_as(g) != "apple"]
        excluded.append(TEXT.text("excluded.macs", macs=len(macs), who=who))
    racks = [g for g in gpus if sold_as(g) == "rack"]
    if racks and request.max_gpus < RACK_GPUS:
        if not request.gpus:  # overkill for most workloads: say so only when asked for by name
            gpus = [g for g in gpus if g not in racks]
            racks = []
        line = TEXT.text("excluded.whole_racks", rack=RACK_GPUS, allowed=request.max_gpus, names="{names}")
        drop(racks, line.en, line.zh)
    return gpus, excluded, withheld


def notes(request: RecommendRequest, gpus: list[GPU], options: list[Option]) -> list[Text]:
    """Notes on the options shown (``options`` is the top of the ranking)."""
    found: list[Text] = []
    if not options:
        found.append(TEXT.text("notes.nothing_fits", allowed=request.max_gpus))
    if macs := [o for o in options if o.sold_as == "apple"]:
        share = min(usable_fraction(gpu) for gpu in gpus if gpu.id in {o.gpu_id for o in macs})
        found.append(TEXT.text("notes.mac_memory", share=share))
    if sized_by_speed(request) and options:
        users, target = load(request), request.tokens_per_s_per_user
        at = TEXT.text("notes.speed_target", target=target) if target else Text(en="", zh="")
        found.append(TEXT.text("notes.grown", users=users, target=at, engine=ENGINE_LABELS[request.engine]))
        if not any(o.meets_target for o in options):
            found.append(TEXT.text("notes.load_not_met", allowed=request.max_gpus))
    rack = next((o for o in options[:3] if o.sold_as == "rack"), None)
    if rack is not None:
        name = next(rack_name(g) for g in gpus if g.id == rack.gpu_id)
        found.append(TEXT.text("notes.rack", name=name, rack=RACK_GPUS))
    return found
