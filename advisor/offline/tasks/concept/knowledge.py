"""How/why questions answered from the curated knowledge base, with citations."""

from __future__ import annotations

import re

from advisor.offline.wording import Wording
from advisor.contract import Source
from advisor.nlu.facets import SPECS, facet_of
from advisor.nlu.slot_labels import said
from advisor.nlu.subjects import Subjects, card_subjects, covers, subject_labels, subjects_of
from advisor.offline.tasks.concept import capability, compliance
from advisor.offline.tasks.training import efficiency
from advisor.offline.tasks.training import plan as training_plan
from advisor.offline.tasks.facility import render as facility_render
from advisor.offline.tasks.specs import specs
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import ConceptCard, load_concepts
from knowledge.subjects import load_subjects

WORDING = Wording("concept", "knowledge")

SHOWN_HITS = 3
CANDIDATE_HITS = 6  # near-ties below the shown hits can still be the card naming the asked card or answering the asked facet
SURE_CONCEPT = 0.6  # a question surely about the field gets the card among the top hits; an unsure reading only a top card


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
CALCULATOR_TASK = {"recommend": "recommend", "estimate_memory": "memory", "estimate_throughput": "serving_speed",
                   "estimate_training_time": "training_time", "compute_tco": "tco", "compare_gpus": "specs",
                   "plan_facility": "facility"}  # fmt: skip


def concept(turn: Turn, offer: str | None = None, question: str | None = None, asked_first: str | None = None,
            in_thread: bool = False, answered: frozenset[str] = frozenset(), no_calculation: bool = False, offer_tool: bool = True) -> str:
    """A concept question, or one too unclear to calculate: the matching card (else the best snippets), then the closest calculator.
    A card is served only when it covers what the question names (GPUs, precisions, engines, capabilities, training
    or serving); else the catalog's capability verdict, else what can be answered about them and one question.
    ``question``: what is asked, when the message only changes an earlier question (``asked_first``): "and fp8?"
    after "does int4 hurt quality?". Unless the change names a card another answer is titled with ("and the
    MI300X?"), the answer to the question first asked still answers it ("and with 8 servers?" after "do two servers need IB?").
    ``in_thread``: the message is its own question about the conversation's subject ("what would migrating cost?"
    after an Ascend answer): it is searched with the cards the conversation named.
    ``answered``: cards an earlier part of the same message was answered with ("AMD or NVIDIA: software, price?"):
    another part is not answered with the same card again while another one fits.
    ``no_calculation``: the thread opened as a concept question, so no earlier calculation is left to change.
    ``offer_tool``: False when the calculation follows the card in the same answer, so it is not offered."""
    thread_cards = _thread_cards(turn) if in_thread else []
    outcome = _search(turn, " ".join([question or turn.message, *_thread_card_words(turn, thread_cards)]))
    words = _card_words(turn) | _model_numbers(thread_cards)
    if asked_first is not None and not _naming(_hits(outcome), words):
        outcome = _search(turn, asked_first)
    hits = _naming_first(_hits(outcome), words)
    if question is not None or (turn.reading.intent == "concept" and turn.reading.confidence >= SURE_CONCEPT):
        hits = _card_first(hits)
    # a new question in the thread: the card that answered the last one is not its answer (the cards an earlier part of
    # this message cited say which that was, when there are any)
    if in_thread and turn.earlier and (thread_cards or turn.reading.follow_up) and not answered:
        answered = _top_card(_hits(_search(turn, turn.earlier[-1])))
        hits = _card_first([hit for hit in hits if hit["doc_id"] != answered] or hits)
    if answered:
        hits = _card_first([hit for hit in hits if hit["doc_id"] not in answered] or hits)
    facet = facet_of(question or turn.message).name
    if facet != SPECS:  # "NVIDIA says 15x the H100, real?" is answered by the card on vendor claims, not the H100's
        hits = _facet_first(hits, facet, words)
    asked = _asked_subjects(turn, question or turn.message, thread_cards)
    hits, asked = _covering_one_of_thread(turn, hits, asked, question or turn.message, thread_cards, facet)
    if facet == SPECS:  # the card naming the asked GPU leads among those that cover the question ("FP8 speed-up on H100?"
        hits = _naming_first(hits, words)  # is not the H100-to-B200 card, which names the H100 but no FP8)
    if asked.get("ask") and not _top_card(hits):  # the ask narrowed the near hits away: search again with the ask said plainly
        hits = _covering(turn, _card_first(_hits(_search(turn, " ".join([question or turn.message, *_ask_labels(turn, asked)])))),
                         asked, asks_figures=facet == SPECS) or hits
    if compliance.asks_compliance(asked):  # the status verdict leads; a card on exactly that card's rules may follow
        # ... unless the card is used remotely, not shipped: the card on remote use answers that, the shipping status follows
        card_first = compliance.asks_remote_use(asked)
        return _with_card(turn, compliance.answer(turn, asked), hits, card_first) + "\n\n🧮 " + compliance.offer(turn)
    if _names_subjects(asked) and not (hits and hits[0]["doc_id"].startswith(CARD_PREFIX)):
        if len(asked.get("gpu", ())) > 1 and not capability.asked(turn):  # "H100 now, H200, or wait for B200?": a row per option, value first
            return specs.answer(turn, value_first=True)
        return capability.answer(turn) or _uncovered(turn, asked)  # never a neighbouring card or a snippet list
    card = load_concepts().card(hits[0]["doc_id"].removeprefix(CARD_PREFIX)) if hits and hits[0]["doc_id"].startswith(CARD_PREFIX) else None
    if card is None:
        body = _snippets(turn, outcome)
    else:
        card_text = f"**{card.title.pick(turn.language)}**\n\n{card.answer.pick(turn.language)}"
        verdict, card_too = _verdict_before(turn, card, asked, facet)
        body = capability.claim_lead(turn) + card_text if verdict is None else verdict + ("\n\n" + card_text if card_too else "")
        if verdict is None or card_too:
            for source in card.sources:
                turn.cite(f"{hits[0]['doc_id']}:{source.url}", source.cited, urls=[source.url])
            offer = CALCULATOR_TASK.get(card.calculator or "") or offer  # the card names the tool that refines it; the reading only guessed
    if training_plan.judges_mfu(turn, asked):  # "38% MFU on 512 H100s, good?": the verdict for that setup, then the card on MFU
        body = efficiency.verdict(turn) + "\n\n" + body
    if question is not None and turn.reading.frame.names():
        body += "\n\n📌 " + _noted(turn)
    if not no_calculation and _calculation_open(turn):  # it can be changed, not asked for again
        body += "\n\n🧮 " + turn.t(*OPEN_CALCULATION)
    elif offer in OFFERS and offer_tool:
        body += "\n\n🧮 " + turn.t(*OFFERS[offer])
    return body


UNNAMED_KINDS = ("activity",)  # training or serving narrows which card fits, but names nothing a reply could be about


def _asked_subjects(turn: Turn, question: str, thread_cards: list[str]) -> Subjects:
    """What the question names; a question in a thread that names no GPU is about the thread's cards."""
    asked = subjects_of(question, turn.catalog)
    if "gpu" not in asked and thread_cards:
        asked = asked | subjects_of(" ".join(thread_cards), turn.catalog)
    return asked


def _covering_one_of_thread(turn: Turn, hits: list[dict], asked: Subjects, question: str, thread_cards: list[str],
                            facet: str) -> tuple[list[dict], Subjects]:
    """The hits covering what is asked, and what that is. A question that names no card and asks another side than the
    figures ("is its software still painful?" after "MI300X or H100?") is about the thread's cards; when no card covers
    them all, one on either of them answers it (a spec table of both would not)."""
    covering = _covering(turn, hits, asked, asks_figures=facet == SPECS)
    if _top_card(covering) or facet == SPECS or len(thread_cards) < 2:
        return covering, asked
    for card in thread_cards:
        one = _asked_subjects(turn, question, [card])
        if _top_card(kept := _covering(turn, hits, one, asks_figures=False)):
            return kept, one
    return covering, asked


def _ask_labels(turn: Turn, asked: Subjects) -> list[str]:
    by_id = {subject.id: subject for subject in load_subjects().subjects}
    return [by_id[ask].label.pick(turn.language) for ask in sorted(asked.get("ask", ()))]


def _names_subjects(asked: Subjects) -> bool:
    return any(kind not in UNNAMED_KINDS for kind in asked)


def _covering(turn: Turn, hits: list[dict], asked: Subjects, asks_figures: bool) -> list[dict]:
    """The hits that may answer a question naming ``asked``: cards about those subjects (or silent on their kind);
    a guidance snippet is not checked against a named subject, so it goes too (a list of them is no answer)."""
    if not asked:
        return hits
    cards = load_concepts()
    kept = []
    for hit in hits:
        card = cards.card(hit["doc_id"].removeprefix(CARD_PREFIX)) if hit["doc_id"].startswith(CARD_PREFIX) else None
        if card is not None and covers(card_subjects(card, turn.catalog), asked, asks_figures):
            kept.append(hit)
        elif card is None and not _names_subjects(asked):
            kept.append(hit)
    return kept


def _with_card(turn: Turn, verdict: str, hits: list[dict], card_first: bool = False) -> str:
    """A computed verdict, then the covering card (if the top hit is one) as its background, cited; or the card
    first when it answers what was asked and the verdict is only background."""
    if not (hits and hits[0]["doc_id"].startswith(CARD_PREFIX)):
        return verdict
    card = load_concepts().card(hits[0]["doc_id"].removeprefix(CARD_PREFIX))
    for source in card.sources:
        turn.cite(f"{hits[0]['doc_id']}:{source.url}", source.cited, urls=[source.url])
    card_text = f"{card.answer.pick(turn.language)}" if card_first else f"**{card.title.pick(turn.language)}**\n\n{card.answer.pick(turn.language)}"
    return f"{card_text}\n\n{verdict}" if card_first else f"{verdict}\n\n{card_text}"


def _verdict_before(turn: Turn, card: ConceptCard, asked: Subjects, facet: str) -> tuple[str | None, bool]:
    """A capability asked of a named GPU ("is the H20 SXM or PCIe?") that the card does not settle for that GPU:
    the catalog's verdict first, then the card only when it is about that capability in general (True)."""
    found = capability.asked(turn) if facet == SPECS else None  # "is FP4 on a B200 good enough?" asks the card's side, not the figure
    if found is None:
        return None, True
    about = card_subjects(card, turn.catalog)
    on_capability = any(found[0].id in ids for ids in about.values())
    if on_capability and "gpu" in about and about["gpu"] & asked.get("gpu", frozenset()):
        return None, True  # "does the RTX 6000 Ada have NVLink?" has a card of its own
    return capability.answer(turn), on_capability and "gpu" not in about


def _uncovered(turn: Turn, asked: Subjects) -> str:
    """No card covers what the question names: what can be answered about it, and one precise question."""
    subjects = turn.t(", ", "、").join(subject_labels(asked, turn.catalog, turn.language))
    return capability.WORDING.say(turn, "uncovered", subjects=subjects) + "\n\n" + capability.WORDING.say(turn, "uncovered_question")


def _calculation_open(turn: Turn) -> bool:
    """An earlier message asked for a calculation that is still open. A first question that merely names a
    GPU ("FP8 speed-up on H100?") has values but no calculation behind it: nothing "still stands"."""
    reading = turn.reading
    return reading.task in OFFERS and bool(reading.state.names()) and turn.ask.opened_earlier


def _noted(turn: Turn) -> str:
    """What a follow-up to a concept question adds ("and at 64 gpus across 8 nodes") does not change the card,
    but it is kept: the next calculation asked "on that" starts from it."""
    stated = turn.reading.frame
    worked_out = {"gpu_count"} if stated.has("gpus_per_server") else set()  # "two 8-GPU servers": the user said 8 per server, not the total
    values = turn.t(", ", "、").join(said(slot, stated.surface(slot), turn.language) for slot in stated.names() if slot not in worked_out)
    return WORDING.say(turn, "knowledge_phrases.noted.noted_for_the_next_calculation").format(values=values)


def _card_words(turn: Turn) -> set[str]:
    """The model numbers of the cards the message names ("mi300x", "h20"): a card titled with one is about that card."""
    names = [turn.catalog.find_gpu(gpu) for gpu in turn.entities.gpus]
    return _model_numbers([gpu.name for gpu in names if gpu is not None])


def _model_numbers(names: list[str]) -> set[str]:
    return {word for name in names for word in re.findall(r"[a-z]*\d+[a-z0-9]*", name.lower()) if not word.isdigit()}


def _thread_card_words(turn: Turn, names: list[str]) -> list[str]:
    """The thread's cards as the user wrote them ("Ascend 910B" written in Chinese), so a Chinese question is searched in Chinese."""
    said = {turn.catalog.find_gpu(value.value).name: value.surface for value in turn.reading.state.slots.get("gpu", [])
            if turn.catalog.find_gpu(value.value) is not None}  # fmt: skip
    return list(dict.fromkeys(said.get(name, name) for name in names))


def _thread_cards(turn: Turn) -> list[str]:
    """The names of the cards the conversation is about that this message does not name again."""
    own = set(turn.entities.gpus)
    found = [turn.catalog.find_gpu(gpu) for gpu in turn.slots.gpus if gpu not in own]
    return list(dict.fromkeys(gpu.name for gpu in found if gpu is not None))


def cards_cited(turn: Turn) -> frozenset[str]:
    """The concept cards the answer so far cites (a card cites each source as "<card doc id>:<url>")."""
    return frozenset(source.doc_id.split(":", 1)[0] for source in turn.sources if source.doc_id.startswith(CARD_PREFIX))


def card_calculation(turn: Turn) -> str | None:
    """The task of the tool that refines the card this answer cites ("plan_facility" → "facility"), if it cites one."""
    cited = sorted(cards_cited(turn))
    card = load_concepts().card(cited[0].removeprefix(CARD_PREFIX)) if cited else None
    return CALCULATOR_TASK.get(card.calculator or "") if card is not None else None


def _search(turn: Turn, query: str) -> ToolOutcome:
    return turn.call("search_knowledge", {"query": query[:2000], "k": CANDIDATE_HITS, "language": turn.language})


def _facet_first(hits: list[dict], facet: str, card_words: set[str]) -> list[dict]:
    """The first card that answers the asked facet goes first, one titled with the card asked about before the
    rest ("still worth buying? the H200" wants the H200's card on that, not its export rules); the others keep their order."""
    cards = load_concepts()
    answering = [hit for hit in hits if hit["doc_id"].startswith(CARD_PREFIX)
                 and facet in getattr(cards.card(hit["doc_id"].removeprefix(CARD_PREFIX)), "facets", [])]  # fmt: skip
    first = (_naming(answering, card_words) or answering or [None])[0]
    return [first, *[hit for hit in hits if hit is not first]] if first else hits


def _top_card(hits: list[dict]) -> str | None:
    return next((hit["doc_id"] for hit in hits if hit["doc_id"].startswith(CARD_PREFIX)), None)


def _hits(outcome: ToolOutcome) -> list[dict]:
    return (outcome.result or {}).get("hits", [])


def _naming(hits: list[dict], card_words: set[str]) -> list[dict]:
    return [hit for hit in hits if hit["doc_id"].startswith(CARD_PREFIX) and card_words & set(re.findall(r"[a-z0-9]+", hit["title"].lower()))]


def _naming_first(hits: list[dict], card_words: set[str]) -> list[dict]:
    """Retrieval's near-ties ("is X usable yet?" fits every vendor's maturity card) go to the one naming the card asked about."""
    naming = _naming(hits, card_words)
    return [naming[0], *[hit for hit in hits if hit is not naming[0]]] if naming else hits


def _card_first(hits: list[dict]) -> list[dict]:
    """A concept card among the top hits answers the question directly; a guidance snippet ranked above it
    ("for fine-tuning" pulls the fine-tuning sizing doc) is only its context."""
    cards = [hit for hit in hits if hit["doc_id"].startswith(CARD_PREFIX)]
    return [cards[0], *[hit for hit in hits if hit is not cards[0]]] if cards else hits


def _snippets(turn: Turn, outcome: ToolOutcome) -> str:
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


def related(turn: Turn, query: str, k: int = 2) -> None:
    """Cite the guidance docs most related to a tool answer, so every answer points somewhere to read more; a
    card among them is cited only when it covers what the question names (no serving FAQ beside an MFU verdict)."""
    outcome = turn.call("search_knowledge", {"query": query[:2000], "k": k, "language": turn.language})
    hits = (outcome.result or {}).get("hits", [])
    asked = turn.ask.named
    cards = load_concepts()
    for hit in hits:
        card = cards.card(hit["doc_id"].removeprefix(CARD_PREFIX)) if hit["doc_id"].startswith(CARD_PREFIX) else None
        if card is None or covers(card_subjects(card, turn.catalog), asked):
            turn.cite_source(Source.from_hit(hit))
