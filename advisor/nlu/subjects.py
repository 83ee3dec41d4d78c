"""What a text names — GPUs (by catalog family), models, precisions, capabilities, engines, the activity — so an answer
card is served only for a question it covers: a card about the H20 does not answer an H100 question, and a card
about training on the 910B does not answer whether the 910B serves with vLLM. The words are data
(knowledge/subjects.yaml, knowledge/capabilities.yaml, the catalog's names); a card may state its subjects
(``about``) where reading its title and questions gets them wrong."""

from __future__ import annotations

import re
from functools import lru_cache
from weakref import WeakKeyDictionary

from advisor.name_matcher import matcher_for, normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.capabilities import Capability, load_capabilities
from knowledge.catalog import VARIANT_PART, Catalog, variant_family
from knowledge.concepts import ConceptCard, load_concepts
from knowledge.subjects import Subject, load_subjects

Subjects = dict[str, frozenset[str]]  # kind → ids
VARIANT_CHOICE = "variant_choice"  # the ask read from the catalog when a text names two variants of one GPU
VARIANT = "variant"  # with that ask, the variant words said ("pcie", "sxm", "40gb"): which two variants are weighed
TOKEN_RATE = "token_rate"  # the ask read from the values when a token count is said per day or per month


@lru_cache(maxsize=1)
def _subject_patterns() -> list[tuple[Subject, re.Pattern[str]]]:
    return [(subject, cue_pattern(subject.cues)) for subject in load_subjects().subjects]


@lru_cache(maxsize=1)
def _capability_patterns() -> list[tuple[Capability, re.Pattern[str]]]:
    return [(capability, cue_pattern(capability.cues)) for capability in load_capabilities().capabilities]


def capabilities_named(text: str) -> list[Capability]:
    """Every capability a text names, in table order: a cue inside a longer cue of another capability ("memory" in
    "memory bandwidth") is part of that one. What a question relies on ("four 4090s over NVLink for FP8 training") is all of them."""
    normal = normalize_text(text if isinstance(text, str) else "")
    spans = {capability.id: [m.span() for m in pattern.finditer(normal)] for capability, pattern in _capability_patterns()}
    every = [span for found in spans.values() for span in found]
    inside = {i for i, found in spans.items() if found and all(any(o[0] <= s[0] and s[1] <= o[1] and o != s for o in every) for s in found)}
    return [capability for capability, _ in _capability_patterns() if spans[capability.id] and capability.id not in inside]


def capability_of(text: str) -> Capability | None:
    """The one capability a text asks about; None for none, or for several ("memory and bandwidth?" wants the
    spec sheet). A capability absorbs the ones its table entry names ("NVLink, how much bandwidth?" is one question)."""
    named = capabilities_named(text)
    absorbed = {i for capability in named for i in capability.absorbs}
    named = [capability for capability in named if capability.id not in absorbed]
    return named[0] if len(named) == 1 else None


def subjects_of(text: str, catalog: Catalog) -> Subjects:
    """The subjects ``text`` names, by kind; a kind it does not name is absent."""
    normal = normalize_text(text if isinstance(text, str) else "")
    found: dict[str, set[str]] = {}
    names = matcher_for(catalog).scan(normal)
    gpus = {variant_family(match.id) for match in names if match.kind == "gpu"}
    if gpus:
        found["gpu"] = gpus
    if _names_two_variants(normal, {match.id for match in names if match.kind == "gpu"}, gpus, catalog):
        found.setdefault("ask", set()).add(VARIANT_CHOICE)
        variants = _variants_said(normal, {match.id for match in names if match.kind == "gpu"}, gpus, catalog)
        if variants:
            found[VARIANT] = variants
    models = {match.id for match in names if match.kind == "model"}
    if models:
        found["model"] = models
    by_id = {subject.id: subject for subject in load_subjects().subjects}
    vendors_named = {catalog.gpu(match.id).vendor for match in names if match.kind == "gpu"}
    for subject, pattern in _subject_patterns():
        if subject.vendor in vendors_named:  # "Moore Threads S4000": the maker's word names the catalogued part
            continue
        if pattern.search(normal):
            for named in (subject, *(by_id[i] for i in subject.implies)):
                found.setdefault(named.kind, set()).add(named.id)
    return {kind: frozenset(ids) for kind, ids in found.items()}


def _names_two_variants(normal: str, ids: set[str], families: set[str], catalog: Catalog) -> bool:
    """Two variants of one GPU are named: by name ("H200 NVL or H200 SXM?"), or one GPU with two of its variants' memory
    sizes ("A100 40GB or 80GB?", "A100 40G or 80G"). Such a question weighs which variant, not two different GPUs."""
    if len(ids) > len(families):
        return True
    squeezed = normal.replace(" ", "")
    for family in families if len(families) == 1 else ():  # "H100 80GB vs A100 40GB" names two GPUs, not two sizes of one
        sizes = {int(gpu.memory_gb) for gpu in catalog.gpus if variant_family(gpu.id) == family and gpu.memory_gb}
        if len(sizes) > 1 and sum(f"{size}g" in squeezed for size in sizes) > 1:
            return True
    return False


def _variants_said(normal: str, ids: set[str], families: set[str], catalog: Catalog) -> set[str]:
    """The variant words a text says of the GPU whose variants it weighs: a form factor written ("PCIe", "SXM5" as "sxm",
    "NVL") and each of its variants' memory sizes written ("40G" as "40gb"). A bare "H100" says no form factor."""
    forms = {part.rstrip("0123456789") for gpu_id in ids for part in gpu_id.split("-") if VARIANT_PART.match(part) and not part.endswith("gb")}
    said = {form for form in forms if form in normal}
    squeezed = normal.replace(" ", "")
    sizes = {int(gpu.memory_gb) for gpu in catalog.gpus if variant_family(gpu.id) in families and gpu.memory_gb}
    return said | {f"{size}gb" for size in sizes if f"{size}g" in squeezed}


# A card title's subjects, per catalog: the routing scans every card's subjects (judging_card, variant_card) on each
# message that asks a judgement, and reading ~290 titles costs about 0.2 s, for a result fixed by the title and catalog.
_TITLE_SUBJECTS: WeakKeyDictionary[Catalog, dict[str, Subjects]] = WeakKeyDictionary()


def _title_subjects(title: str, catalog: Catalog) -> Subjects:
    read = _TITLE_SUBJECTS.setdefault(catalog, {})
    if title not in read:
        read[title] = subjects_of(title, catalog)
    return read[title]


def card_subjects(card: ConceptCard, catalog: Catalog) -> Subjects:
    """What a card is about: its ``about`` where stated (kind by kind), else what its title names. Its example
    questions are not read: "what network does an H100 cluster need" is an example, the InfiniBand card holds for any GPU."""
    read = _title_subjects(card.title.en + " \n " + card.title.zh, catalog)
    stated = {kind: frozenset(ids) for kind, ids in (card.about or {}).items()}
    return {kind: ids for kind, ids in (read | stated).items() if ids}


NARROWING_KINDS = ("precision", "capability", "engine")  # what a card is narrowly about beyond the hardware


def covers(card: Subjects, asked: Subjects, asks_figures: bool = True) -> bool:
    """A card answers a question when, for every kind of subject both name, they share one (for GPUs and models:
    the card names each one asked), and it names the topic asked (MFU, export rules, cost per token); a card silent
    on another kind (a general card on FP8) holds for any subject of it. A question that asks another side than the figures
    (whether to wait, whether it may be bought) is not answered by a card narrowed to a precision, capability or
    engine the question never names: "wait for the next generation before buying L40S?" is not the L40S NVLink card."""
    if not asks_figures and any(kind in card and kind not in asked for kind in NARROWING_KINDS):
        return False
    table = load_subjects()
    if set(table.narrowing_asks) & card.get("ask", frozenset()) - asked.get("ask", frozenset()):  # a card on which variant to take
        return False
    if any(kind in asked and kind not in card for kind in table.card_must_name):
        return False
    # a card on two variants answers a choice between those two only: "H100 PCIe or SXM?" is not the NVL-or-PCIe card
    each = {*table.card_covers_each, VARIANT}
    return all(ids <= card[kind] if kind in each else ids & card[kind] for kind, ids in asked.items() if kind in card)


def variant_card(asked: Subjects, catalog: Catalog) -> ConceptCard | None:
    """The card on the choice between exactly the variants a question weighs ("A100 40GB or 80GB?"), if there is one."""
    if VARIANT_CHOICE not in asked.get("ask", ()):
        return None
    for card in load_concepts().cards:
        about = card_subjects(card, catalog)
        if VARIANT_CHOICE in about.get("ask", ()) and covers(about, asked, asks_figures=False):
            return card
    return None


def uncatalogued_gpus(asked: Subjects, catalog: Catalog) -> frozenset[str]:
    """The hardware a question names that the catalog has no row for (Cambricon, Hygon, Kunlunxin, ...): no spec
    sheet or sizing can answer about it, only a card on it."""
    families = {variant_family(gpu.id) for gpu in catalog.gpus}
    return frozenset(asked.get("gpu", frozenset()) - families)


def subject_labels(asked: Subjects, catalog: Catalog, language: str) -> list[str]:
    """The named subjects as a reader knows them: GPU names from the catalog, the rest from the subject table."""
    by_id = {subject.id: subject for subject in load_subjects().subjects}
    labels = [next((g.name for g in catalog.gpus if variant_family(g.id) == family), None) or by_id[family].label.pick(language)
              for family in sorted(asked.get("gpu", ()))]  # a vendor with no catalog row is named as the subject table names it
    labels += [catalog.model(model).name for model in sorted(asked.get("model", ()))]
    for kind in ("precision", "capability", "engine", "topic"):
        labels += [by_id[i].label.pick(language) for i in sorted(asked.get(kind, ()))]
    return labels
