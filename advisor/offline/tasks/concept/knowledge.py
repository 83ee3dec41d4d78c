"""How/why questions answered from the curated knowledge base, with citations: the knowledge search (search_knowledge),
the hit plan.py chooses for what the question names, the card or snippets in render.py's words, and the closest calculator."""

from __future__ import annotations

from advisor.contract import Source
from advisor.nlu.facets import SPECS, facet_of
from advisor.nlu.subjects import Subjects, card_subjects, covers
from advisor.offline.tasks.concept import capability, compliance, plan, render
from advisor.offline.tasks.concept.plan import CALCULATOR_TASK
from advisor.offline.tasks.concept.render import OFFERS
from advisor.offline.tasks.training import efficiency
from advisor.offline.tasks.training import plan as training_plan
from advisor.offline.tasks.specs import specs
from advisor.offline.turn import Turn
from advisor.registry import ToolOutcome
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import ConceptCard, load_concepts


def concept(turn: Turn, offer: str | None = None, question: str | None = None, asked_first: str | None = None,
            in_thread: bool = False, answered: frozenset[str] = frozenset(), no_calculation: bool = False, offer_tool: bool = True,
            facet: str | None = None, chosen_card: str | None = None) -> str:
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
    ``offer_tool``: False when the calculation follows the card in the same answer, so it is not offered.
    ``facet``: the side asked when the router knows it from more than the words ("GB200 30x an H100?" with the multiple far
    beyond every like-for-like figure is a vendor claim, however it is worded).
    ``chosen_card``: the card the router chose for the question (the platform's serving card for "how do I serve X on the 910B?"),
    served first when it covers what is asked."""
    thread_cards = plan.thread_cards(turn) if in_thread else []
    outcome = _search(turn, " ".join([question or turn.message, *plan.thread_card_words(turn, thread_cards)]))
    words = plan.card_words(turn) | plan.model_numbers(thread_cards)
    if asked_first is not None and not plan.naming_card(plan.hits_of(outcome), words):
        outcome = _search(turn, asked_first)
    hits = plan.naming_first(plan.hits_of(outcome), words)
    if question is not None or (turn.reading.intent == "concept" and turn.reading.confidence >= plan.SURE_CONCEPT):
        hits = plan.card_first(hits)
    # a new question in the thread: the card that answered the last one is not its answer (the cards an earlier part of
    # this message cited say which that was, when there are any)
    if in_thread and turn.earlier and (thread_cards or turn.reading.follow_up) and not answered:
        answered = plan.top_card(plan.hits_of(_search(turn, turn.earlier[-1])))
        hits = plan.card_first([hit for hit in hits if hit["doc_id"] != answered] or hits)
    if answered:
        hits = plan.card_first([hit for hit in hits if hit["doc_id"] not in answered] or hits)
    if facet is not None:  # the side known from more than the words: the cards on it, found by its own words, come first
        hits = plan.of_facet(plan.hits_of(_search(turn, render.WORDING.say(turn, f"search_hint.{facet}"))), facet)[:1] + hits
    facet = facet or facet_of(question or turn.message).name
    if facet != SPECS:  # "NVIDIA says 15x the H100, real?" is answered by the card on vendor claims, not the H100's
        hits = plan.facet_first(hits, facet, words)
    asked = plan.asked_subjects(turn, question or turn.message, thread_cards)
    hits, asked = plan.covering_one_of_thread(turn, hits, asked, question or turn.message, thread_cards, facet)
    if facet == SPECS:  # the card naming the asked GPU leads among those that cover the question ("FP8 speed-up on H100?"
        hits = plan.naming_first(hits, words)  # is not the H100-to-B200 card, which names the H100 but no FP8)
    if chosen_card is not None:  # chosen by the router for what is asked: it leads whatever the words rank first
        chosen = plan.as_hit(turn, chosen_card)
        hits = [chosen, *(hit for hit in hits if hit["doc_id"] != chosen["doc_id"])]
    if asked.get("ask") and not plan.top_card(hits):  # the ask narrowed the near hits away: search again with the ask said plainly
        hits = plan.covering_hits(turn, plan.card_first(plan.hits_of(_search(turn, " ".join([question or turn.message, *plan.ask_labels(turn, asked)])))),
                         asked, asks_figures=facet == SPECS) or hits
    if compliance.asks_compliance(asked):  # the status verdict leads; a card on exactly that card's rules may follow
        # ... unless the card is used remotely, not shipped: the card on remote use answers that, the shipping status follows
        card_first = compliance.asks_remote_use(asked)
        return render.with_card(turn, compliance.answer(turn, asked), hits, card_first) + "\n\n🧮 " + compliance.offer(turn)
    if asked.get("ask") and len(asked.get("gpu", ())) < 2 and not (hits and hits[0]["doc_id"].startswith(CARD_PREFIX)):
        hits = plan.card_on_ask(turn, asked) + hits  # retrieval missed the card on what is asked: the general card on that ask
    if plan.names_subjects(asked) and not (hits and hits[0]["doc_id"].startswith(CARD_PREFIX)):
        if len(asked.get("gpu", ())) > 1 and not capability.asked(turn):  # "H100 now, H200, or wait for B200?": a row per option, value first
            return specs.answer(turn, value_first=True)
        if turn.ask.spec_fields_asked and turn.entities.gpus and not capability.asked(turn):  # "is the A10 passive or active?":
            return specs.answer(turn)  # a catalog figure of a catalog card, which the spec answer leads with
        return capability.answer(turn) or render.uncovered(turn, asked)  # never a neighbouring card or a snippet list
    card = load_concepts().card(hits[0]["doc_id"].removeprefix(CARD_PREFIX)) if hits and hits[0]["doc_id"].startswith(CARD_PREFIX) else None
    if card is None:
        body = render.snippets(turn, outcome)
    else:
        card_text = render.answer_of(turn, card)
        verdict, card_too = _verdict_before(turn, card, asked, facet)
        body = capability.claim_lead(turn) + card_text if verdict is None else verdict + ("\n\n" + card_text if card_too else "")
        # "does the L40S come with a ConnectX-7?" answered by a card on servers, not on the L40S: the catalog's line on the
        # figure asked of the one card named leads, the card explains (a card on that card answers for it itself)
        on_card = card_subjects(card, turn.catalog).get("gpu", frozenset()) & asked.get("gpu", frozenset())
        figure = specs.asked_of_one(turn) if verdict is None and not on_card else ""
        body = f"{figure}\n\n{body}" if figure else body
        if verdict is None or card_too:
            for source in card.sources:
                turn.cite(f"{hits[0]['doc_id']}:{source.url}", source.cited, urls=[source.url])
            offer = CALCULATOR_TASK.get(card.calculator or "") or offer  # the card names the tool that refines it; the reading only guessed
    if training_plan.judges_mfu(turn, asked):  # "38% MFU on 512 H100s, good?": the verdict for that setup, then the card on MFU
        body = efficiency.verdict(turn) + "\n\n" + body
    if question is not None and turn.reading.frame.names():
        body += "\n\n📌 " + render.noted(turn)
    if not no_calculation and _calculation_open(turn):  # it can be changed, not asked for again
        body += "\n\n🧮 " + turn.t(*render.OPEN_CALCULATION)
    elif offer in OFFERS and offer_tool:
        body += "\n\n🧮 " + turn.t(*OFFERS[offer])
    return body


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


def _calculation_open(turn: Turn) -> bool:
    """An earlier message asked for a calculation that is still open. A first question that merely names a
    GPU ("FP8 speed-up on H100?") has values but no calculation behind it: nothing "still stands"."""
    reading = turn.reading
    return reading.task in OFFERS and bool(reading.state.names()) and turn.ask.opened_earlier


def cards_cited(turn: Turn) -> frozenset[str]:
    """The concept cards the answer so far cites (a card cites each source as "<card doc id>:<url>")."""
    return frozenset(source.doc_id.split(":", 1)[0] for source in turn.sources if source.doc_id.startswith(CARD_PREFIX))


def card_calculation(turn: Turn) -> str | None:
    """The task of the tool that refines the card this answer cites ("plan_facility" → "facility"), if it cites one."""
    cited = sorted(cards_cited(turn))
    card = load_concepts().card(cited[0].removeprefix(CARD_PREFIX)) if cited else None
    return CALCULATOR_TASK.get(card.calculator or "") if card is not None else None


def _search(turn: Turn, query: str) -> ToolOutcome:
    return turn.call("search_knowledge", {"query": query[:2000], "k": plan.CANDIDATE_HITS, "language": turn.language})


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
