"""The concept task's plan: what a knowledge question names (its cards, subjects and facet, the thread's cards), the
words it is searched with, and which of the search's hits may answer it (cards covering what is named, the one naming
the asked card or answering the asked facet first). No wording here; the sentences are render.py's, and knowledge.py
runs search → choice → render."""

from __future__ import annotations

import re

from advisor.nlu.facets import SPECS
from advisor.nlu.subjects import Subjects, card_subjects, covers, subjects_of
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import load_concepts
from knowledge.equivalents import equivalents
from knowledge.subjects import load_subjects

CANDIDATE_HITS = 6  # near-ties below the shown hits can still be the card naming the asked card or answering the asked facet
SURE_CONCEPT = 0.6  # a question surely about the field gets the card among the top hits; an unsure reading only a top card
CALCULATOR_TASK = {"recommend": "recommend", "estimate_memory": "memory", "estimate_throughput": "serving_speed",
                   "estimate_training_time": "training_time", "compute_tco": "tco", "compare_gpus": "specs",
                   "plan_facility": "facility"}  # fmt: skip
UNNAMED_KINDS = ("activity",)  # training or serving narrows which card fits, but names nothing a reply could be about
NAMED_OVERLAP_KINDS = ("topic", "capability", "engine", "precision")  # what a question is about, beyond the parts it names
ENGINE = "engine"  # the subject kind of a serving engine or software stack (knowledge/subjects.yaml)


def judging_card(turn: Turn, model_too: bool = False) -> str | None:
    """The card that judges what a question asks of the parts it names, when one surely does: a card about every part
    named (a card about parts, not a general one) that also names the side asked beyond the parts (serving, an engine, a
    precision, an ask such as waiting), and covers the rest ("can the 910B run vLLM?" → the vllm-ascend card; "H20 or 910B for serving?"
    → the card on those two for inference). A question naming a model is a sizing, not a judgement a card can make, unless
    ``model_too``: "how do I serve Qwen2.5-72B on the 910B?" asks the way to do it on that platform, which the platform's card
    says whatever the model (the model's estimate follows it)."""
    asked = turn.ask.named
    if model_too:  # the way to do it is the platform's software: a card naming an engine or stack on it
        asked = {kind: ids for kind, ids in asked.items() if kind != "model"}
    if not asked.get("gpu") or asked.get("model"):
        return None
    sides = set(asked) - {"gpu"}
    for card in load_concepts().cards:
        about = card_subjects(card, turn.catalog)
        if model_too and ENGINE not in about:
            continue
        # a how-to asks for the software, so a card narrowed to an engine answers it (asks_figures lifts that narrowing)
        if "gpu" in about and sides & set(about) and covers(about, asked, asks_figures=model_too):
            return card.id
    return None


def card_on_parts(turn: Turn) -> str | None:
    """A card about every part a question names and the side asked of them, covering the rest it names ("H20 or 910B for serving?" → the card on those
    two for inference), a model named aside (a card on the parts judges them whatever the model); None when no card is
    about them all, so a card about a neighbouring subject ("70B in memory" for "one MI300X or two H100s for a 70B?") is no answer."""
    asked = {kind: ids for kind, ids in turn.ask.named.items() if kind != "model"}
    if not asked.get("gpu"):
        return None
    sides = set(asked) - {"gpu"}  # a card naming the parts but none of the side asked (their cooling, for "which for inference?") is no answer
    for card in load_concepts().cards:
        about = card_subjects(card, turn.catalog)
        if "gpu" in about and sides & set(about) and covers(about, asked, asks_figures=False):
            return card.id
    return None


def as_hit(turn: Turn, card_id: str) -> dict:
    """A card as a search hit, for a card the router chose itself (the platform's serving card for a how-to)."""
    card = load_concepts().card(card_id)
    return {"doc_id": CARD_PREFIX + card_id, "title": card.title.pick(turn.language)}


def asked_subjects(turn: Turn, question: str, thread_cards: list[str]) -> Subjects:
    """What the question names; a question in a thread that names no GPU is about the thread's cards."""
    asked = subjects_of(question, turn.catalog)
    if "gpu" not in asked and thread_cards:
        asked = asked | subjects_of(" ".join(thread_cards), turn.catalog)
    return asked


def covering_one_of_thread(turn: Turn, hits: list[dict], asked: Subjects, question: str, thread_cards: list[str],
                           facet: str) -> tuple[list[dict], Subjects]:
    """The hits covering what is asked, and what that is. A question that names no card and asks another side than the
    figures ("is its software still painful?" after "MI300X or H100?") is about the thread's cards; when no card covers
    them all, one on either of them answers it (a spec table of both would not)."""
    covering = covering_hits(turn, hits, asked, asks_figures=facet == SPECS)
    if top_card(covering) or facet == SPECS or len(thread_cards) < 2:
        return covering, asked
    for card in thread_cards:
        one = asked_subjects(turn, question, [card])
        if top_card(kept := covering_hits(turn, hits, one, asks_figures=False)):
            return kept, one
    return covering, asked


def ask_labels(turn: Turn, asked: Subjects) -> list[str]:
    by_id = {subject.id: subject for subject in load_subjects().subjects}
    return [by_id[ask].label.pick(turn.language) for ask in sorted(asked.get("ask", ()))]


def names_subjects(asked: Subjects) -> bool:
    return any(kind not in UNNAMED_KINDS for kind in asked)


def covering_hits(turn: Turn, hits: list[dict], asked: Subjects, asks_figures: bool) -> list[dict]:
    """The hits that may answer a question naming ``asked``: cards about those subjects (or silent on their kind);
    a guidance snippet is not checked against a named subject, so it goes too (a list of them is no answer)."""
    if not asked:
        return hits
    cards = load_concepts()
    kept: list[tuple[int, dict]] = []
    for hit in hits:
        card = cards.card(hit["doc_id"].removeprefix(CARD_PREFIX)) if hit["doc_id"].startswith(CARD_PREFIX) else None
        about = card_subjects(card, turn.catalog) if card is not None else None
        if about is not None and covers(about, asked, asks_figures):
            kept.append((_named_overlap(about, asked), hit))
        elif card is None and not names_subjects(asked):
            kept.append((0, hit))
    # among cards that all cover the question, one naming more of its named subjects answers more of it ("all-to-all over
    # InfiniBand vs NVLink for expert parallel": the card on expert parallel over NVLink before the card on fabrics alone)
    return [hit for _, hit in sorted(kept, key=lambda pair: -pair[0])]


def _named_overlap(about: Subjects, asked: Subjects) -> int:
    """How many of the topics, capabilities, engines and precisions the question names the card also names."""
    return sum(len(ids & about.get(kind, frozenset())) for kind, ids in asked.items() if kind in NAMED_OVERLAP_KINDS)


def card_words(turn: Turn) -> set[str]:
    """The model numbers of the cards the message names ("mi300x", "h20"): a card titled with one is about that card."""
    names = [turn.catalog.find_gpu(gpu) for gpu in turn.entities.gpus]
    return model_numbers([gpu.name for gpu in names if gpu is not None])


def model_numbers(names: list[str]) -> set[str]:
    return {word for name in names for word in re.findall(r"[a-z]*\d+[a-z0-9]*", name.lower()) if not word.isdigit()}


def thread_card_words(turn: Turn, names: list[str]) -> list[str]:
    """The thread's cards as the user wrote them ("Ascend 910B" written in Chinese), so a Chinese question is searched in Chinese."""
    said = {turn.catalog.find_gpu(value.value).name: value.surface for value in turn.reading.state.slots.get("gpu", [])
            if turn.catalog.find_gpu(value.value) is not None}  # fmt: skip
    return list(dict.fromkeys(said.get(name, name) for name in names))


def thread_cards(turn: Turn) -> list[str]:
    """The names of the cards the conversation is about that this message does not name again."""
    own = set(turn.entities.gpus)
    found = [turn.catalog.find_gpu(gpu) for gpu in turn.slots.gpus if gpu not in own]
    return list(dict.fromkeys(gpu.name for gpu in found if gpu is not None))


def of_facet(hits: list[dict], facet: str) -> list[dict]:
    """The hits that are cards answering ``facet``."""
    cards = load_concepts()
    return [hit for hit in hits if hit["doc_id"].startswith(CARD_PREFIX)
            and facet in getattr(cards.card(hit["doc_id"].removeprefix(CARD_PREFIX)), "facets", [])]  # fmt: skip


def facet_first(hits: list[dict], facet: str, card_words: set[str]) -> list[dict]:
    """The first card that answers the asked facet goes first, one titled with the card asked about before the
    rest ("still worth buying? the H200" wants the H200's card on that, not its export rules); the others keep their order."""
    answering = of_facet(hits, facet)
    first = (naming_card(answering, card_words) or answering or [None])[0]
    return [first, *[hit for hit in hits if hit is not first]] if first else hits


def card_on_ask(turn: Turn, asked: Subjects) -> list[dict]:
    """The general card on what a question asks ("buy now or wait for next year's cards?" asked in Chinese: the card on waiting for the next generation),
    as a hit, for when retrieval ranked no card that covers it: of the cards about that ask which cover the question, the
    one whose stated subjects are fewest (the general card before one on particular parts); [] when none."""
    asks = asked.get("ask", frozenset())
    found = []
    for index, card in enumerate(load_concepts().cards):
        stated = card.about or {}
        if not asks or not asks <= set(stated.get("ask", ())) or not covers(card_subjects(card, turn.catalog), asked, asks_figures=False):
            continue
        found.append((sum(len(ids) for ids in stated.values()), index, card))
    if not found:
        return []
    card = min(found, key=lambda row: row[:2])[2]
    return [{"doc_id": CARD_PREFIX + card.id, "title": card.title.pick(turn.language)}]


def top_card(hits: list[dict]) -> str | None:
    return next((hit["doc_id"] for hit in hits if hit["doc_id"].startswith(CARD_PREFIX)), None)


def hits_of(outcome: ToolOutcome) -> list[dict]:
    return (outcome.result or {}).get("hits", [])


def naming_card(hits: list[dict], card_words: set[str]) -> list[dict]:
    return [hit for hit in hits if hit["doc_id"].startswith(CARD_PREFIX) and card_words & set(re.findall(r"[a-z0-9]+", hit["title"].lower()))]


def naming_first(hits: list[dict], card_words: set[str]) -> list[dict]:
    """Retrieval's near-ties ("is X usable yet?" fits every vendor's maturity card) go to the one naming the card asked about."""
    naming = naming_card(hits, card_words)
    return [naming[0], *[hit for hit in hits if hit is not naming[0]]] if naming else hits


def card_first(hits: list[dict]) -> list[dict]:
    """A concept card among the top hits answers the question directly; a guidance snippet ranked above it
    ("for fine-tuning" pulls the fine-tuning sizing doc) is only its context."""
    cards = [hit for hit in hits if hit["doc_id"].startswith(CARD_PREFIX)]
    return [cards[0], *[hit for hit in hits if hit is not cards[0]]] if cards else hits


# ---- another vendor's part in place of a named card (equivalent.py) ----
def asks_equivalent(turn: Turn) -> bool:
    """A stand-in is asked for a named GPU, from another vendor's side: a second GPU of another vendor, or a vendor
    or "domestic" named that is not the GPU's own. "Move our A100s to H200s" stays a same-vendor upgrade."""
    if not turn.ask.asks_equivalent:
        return False
    return equivalent_sides(turn) is not None


def equivalent_sides(turn: Turn) -> tuple[str, list[str], list[str]] | None:
    """The part to match, the named substitutes (may be empty) and the vendors to search (find_equivalents' arguments,
    equivalent.answer); None when not cross-vendor."""
    found = [gpu for name in dict.fromkeys(turn.entities.gpus) if (gpu := turn.catalog.find_gpu(name)) is not None]
    if not found:
        return None
    table_ = equivalents()
    if len({gpu.vendor for gpu in found}) > 1:  # "910B instead of A100": the domestic part is the substitute when one is
        domestic = [gpu for gpu in found if table_.is_domestic(gpu.vendor)]
        foreign = [gpu for gpu in found if not table_.is_domestic(gpu.vendor)]
        in_place, substitutes = (foreign[0], domestic) if domestic and foreign else (found[0], [g for g in found[1:] if g.vendor != found[0].vendor])
        return in_place.id, [gpu.id for gpu in substitutes], []
    part = found[0]
    vendors = [vendor for vendor in turn.ask.equivalent_vendors if vendor != part.vendor]
    if not vendors and table_.is_domestic(part.vendor):
        vendors = [vendor for vendor in turn.ask.equivalent_vendors or ("NVIDIA",) if vendor != part.vendor]
    return (part.id, [], vendors) if vendors else None
