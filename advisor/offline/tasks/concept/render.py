"""The concept task's sentences: a card with the verdict it backs, the guidance snippets when no card answers, what a
follow-up noted for the next calculation, what no card covers, and the closest calculator offered (section knowledge
of the package text.yaml). No search or choice of hits here (plan.py's)."""

from __future__ import annotations

from advisor.offline.wording import Wording
from advisor.contract import Source
from advisor.nlu.slot_schema import said
from advisor.nlu.subjects import Subjects, subject_labels
from advisor.offline.tasks.concept import capability, plan
from advisor.offline.tasks.facility import render as facility_render
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import ConceptCard, load_concepts

WORDING = Wording("concept", "knowledge")


SHOWN_HITS = 3
OFFERS = {
    "recommend": WORDING.pair("knowledge_phrases.offers.if_you_tell_me_the"),
    "memory": WORDING.pair("knowledge_phrases.offers.if_you_tell_me_the_2"),
    "max_fit": WORDING.pair("knowledge_phrases.offers.name_the_gpu_and_model"),
    "specs": WORDING.pair("knowledge_phrases.offers.name_two_gpus_and_i"),
    "serving_speed": WORDING.pair("knowledge_phrases.offers.name_the_model_and_gpu"),
    "training_time": WORDING.pair("knowledge_phrases.offers.give_me_the_model_token"),
    "tco": WORDING.pair("knowledge_phrases.offers.give_me_the_gpus_and"),
    "facility": facility_render.offer(),
}


OPEN_CALCULATION = WORDING.pair("knowledge_phrases.open_calculation.the_calculation_before_this_question")


def with_card(turn: Turn, verdict: str, hits: list[dict], card_first: bool = False) -> str:
    """A computed verdict, then the covering card (if the top hit is one) as its background, cited; or the card
    first when it answers what was asked and the verdict is only background."""
    if not (hits and hits[0]["doc_id"].startswith(CARD_PREFIX)):
        return verdict
    card = load_concepts().card(hits[0]["doc_id"].removeprefix(CARD_PREFIX))
    for source in card.sources:
        turn.cite(f"{hits[0]['doc_id']}:{source.url}", source.cited, urls=[source.url])
    card_text = answer_of(turn, card)
    return f"{card_text}\n\n{verdict}" if card_first else f"{verdict}\n\n{card_text}"


def answer_of(turn: Turn, card: ConceptCard) -> str:
    """A card as an answer: its verdict first (the card's own first sentence answers the question: yes/no, which, how
    much). The title is the card's question, not its answer, so it is not shown; the sources name the card. A fact the user
    stated that changes the card's verdict (its ``verdict_by``: a go-live next month) opens the answer with that verdict."""
    return " ".join([*stated_verdicts(turn, card), card.answer.pick(turn.language)])


def stated_verdicts(turn: Turn, card: ConceptCard) -> list[str]:
    """The card's sentences for the facts the Ask holds that its verdict turns on, in the card's order."""
    leads = [by_value.get(str(getattr(turn.ask, field, None))) for field, by_value in card.verdict_by.items()]
    return [lead.pick(turn.language) for lead in leads if lead is not None]


def uncovered(turn: Turn, asked: Subjects) -> str:
    """No card covers what the question names: what can be answered about it, and one precise question."""
    labels = subject_labels(asked, turn.catalog, turn.language) or plan.ask_labels(turn, asked)  # an ask alone is named by its label, never left blank
    subjects = turn.t(", ", "、").join(labels)
    return capability.WORDING.say(turn, "uncovered", subjects=subjects) + "\n\n" + capability.WORDING.say(turn, "uncovered_question")


def noted(turn: Turn) -> str:
    """What a follow-up to a concept question adds ("and at 64 gpus across 8 nodes") does not change the card,
    but it is kept: the next calculation asked "on that" starts from it."""
    stated = turn.reading.frame
    worked_out = {"gpu_count"} if stated.has("gpus_per_server") else set()  # "two 8-GPU servers": the user said 8 per server, not the total
    values = turn.t(", ", "、").join(said(slot, stated.surface(slot), turn.language) for slot in stated.names() if slot not in worked_out)
    return WORDING.say(turn, "knowledge_phrases.noted.noted_for_the_next_calculation").format(values=values)


def snippets(turn: Turn, outcome: ToolOutcome) -> str:
    """No card answers it: the best guidance sections the search found, cited."""
    if not outcome.ok:
        return turn.error(outcome)
    hits = outcome.result["hits"][:SHOWN_HITS]
    if not hits:
        return WORDING.say(turn, "knowledge_phrases.snippets.i_found_nothing_on_that")
    parts = [WORDING.say(turn, "knowledge_phrases.snippets.from_the_gpu_advisor_knowledge")]
    for hit in hits:
        parts.append(f"**{hit['title']} — {hit['section']}**\n\n{hit['snippet']}")
        turn.cite_source(Source.from_hit(hit))
    return "\n\n".join(parts)
