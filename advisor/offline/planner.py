"""Offline mode: a deterministic bilingual planner that calls the same tools as the LLM agent.

The understanding layer reads the message in its conversation (intent with confidence, slots
with roles, the task a follow-up continues); the routing table (routes.yaml, run by router.py) picks
the answer: a confident task with its slots → the tools; a missing model → the stated assumption plus
a question for it; low confidence → a concept answer from the knowledge base and the closest
calculator. This module splits a message of several questions, folds the answer and names every
slot the user stated that no tool used, with the reason.
"""

from __future__ import annotations

import logging
import string
from pathlib import Path

from advisor.contract import AdvisorResponse, ChatTurn, ToolCall
from advisor.language import detect_language
from advisor.markdown import FOLD_LINES, escape_raw_html, fold, screen_lines, sources_section, table_shown
from advisor.nlu.follow_up import follow_up_subject
from advisor.nlu.reader import Understanding, shared_understanding
from advisor.nlu.slot_schema import UNUSED_BECAUSE, said
from advisor.nlu.question_parts import question_parts
from advisor.nlu.reading import Reading
from advisor.offline.tasks.concept import capability, knowledge
from advisor.offline.tasks.concept import plan as concept_plan
from advisor.offline.tasks.dialogue import plan as dialogue_plan
from advisor.offline.tasks.dialogue import render as dialogue_render
from advisor.offline.tasks.dialogue import setup_question
from advisor.offline.tasks.traps import traps
from advisor.offline.tasks.dialogue import parts as answer_parts
from advisor.offline import measure_parts
from advisor.offline.router import GUARDED, MIN_CONFIDENCE, TASKS, explains_last_figure, route
from advisor.offline.turn import Turn
from advisor.registry import Registry
from knowledge.bilingual import Text
from knowledge.catalog import Catalog, load_catalog
from knowledge.wording import Wording
from tools.models.resolve import checkpoint_precision_note

QUOTED_CHARS = 120
NOT_REPORTED = {"gpus_per_server"}
CHECKPOINT_CHARACTERS = frozenset(string.ascii_letters + string.digits + "/-_.:")
WORDING = Wording(Path(__file__).with_name("planner_text.yaml"))
log = logging.getLogger(__name__)


class OfflinePlanner:
    def __init__(self, registry: Registry, catalog: Catalog | None = None, cache_dir: Path | None = None):
        self.registry = registry
        self.catalog = catalog or load_catalog()
        self.understanding = shared_understanding(cache_dir) if catalog is None else Understanding(catalog, cache_dir)

    def answer(self, message: str, history: list[ChatTurn]) -> AdvisorResponse:
        message = message if isinstance(message, str) else ""
        try:
            return self._answer(message, history)
        except Exception:  # a defect in one answer writer: the user gets a plain reply in their language, the log the trace
            log.exception("offline answer failed")
            language = detect_language(message)
            text = WORDING.pick("could_not_finish", language)
            return AdvisorResponse(answer=text, summary=text, details="", language=language, mode="offline", tool_calls=[], sources=[])

    def _answer(self, message: str, history: list[ChatTurn]) -> AdvisorResponse:
        earlier = [t.content for t in history if t.role == "user"]
        reading = self.understanding.read(message, earlier)
        turn = Turn(message=message, reading=reading, registry=self.registry, catalog=self.catalog, earlier=earlier)
        parts = self._separate_questions(turn, earlier)
        if parts:  # "can X run Y? and what does moving cost?": each question its own verdict, all in the opening line
            bodies = [self._part_body(part, calculates, index > 0) for index, (part, calculates) in enumerate(parts)]
            # a calculated part that repeats an earlier one is covered by it; only a card found twice lacks an answer of its own
            bodies = dialogue_render.without_repeats(turn, bodies, ["" if calculates else part.message for part, calculates in parts])
            opening = dialogue_render.combined(turn, bodies)
            limit = _part_limit(opening, len(parts))  # the parts share one screen under the opening that answers them all
            folded = [_fold_part(f"**{index}.** _{_quoted(part.message)}_", body, limit) for index, ((part, _), body) in enumerate(zip(parts, bodies, strict=True), 1)]
            summary, details = "\n\n".join(s for s, _ in folded), "\n\n".join(d for _, d in folded if d)
            summary = "\n\n".join(filter(None, [opening, summary]))
        else:
            # the verdict and what fits on a screen; tables, defaults and sources below. "why?" shows its explanation
            # alone above the fold: the answer it explains was just read.
            previous = _previous_calls(history)
            body = self._body(turn, previous)
            # "power draw and network for 4x8 H100 nodes?": each measure asked gets its part, in the order asked
            several = measure_parts.answer_parts(turn, body, _measure_body)
            if several:
                opening = dialogue_render.combined(turn, [text for _, text in several])
                limit = _part_limit(opening, len(several))
                folded = [_fold_part(f"**{index}. {measure_parts.label(turn, measures)}**", text, limit) for index, (measures, text) in enumerate(several, 1)]
                summary, details = "\n\n".join(s for s, _ in folded), "\n\n".join(d for _, d in folded if d)
                summary = "\n\n".join(filter(None, [opening, summary]))
            else:
                summary, details = fold(body, limit=1 if explains_last_figure(turn) else FOLD_LINES)
            if turn.ask.asks_table:  # "give me a table": the table asked for is the answer, shown above the fold
                summary, details = table_shown(summary, details)
            if _calculated(turn) and not turn.compared_itself:  # "and with 16?": the first sentence says which value the re-run changed
                summary = dialogue_render.with_lead(turn, dialogue_render.lead(turn, previous), summary)
        if _repeats_last_answer(summary, message, history):  # a follow-up read as nothing new: say so, never reprint the answer above
            summary = WORDING.pick("nothing_new", turn.language)
        for count in turn.ask.vague_counts:  # "dozens of users": the range read and the value sized for, so the user can correct it
            turn.assumptions.append(turn.text(WORDING.text("vague_count", surface=count.surface.strip(), low=f"{count.low:,}", high=f"{count.high:,}", plan=f"{count.plan:,}")))
        if turn.slots.peak_load:  # "500 daily users": the peak share taken, shown as an assumption that can change the verdict
            turn.assumptions.append(turn.text(turn.slots.peak_load.assumption()))
        below = [details] if details else []
        if turn.assumptions:
            below.append("**" + turn.t(*WORDING.pair("assumptions")) + "**\n" + "\n".join(f"- {a}" for a in dict.fromkeys(turn.assumptions)))  # each said once, however many writers rested on it
        if turn.sources:
            below.append(sources_section(turn.sources, turn.language))
        details = "\n\n".join(below)
        return AdvisorResponse(
            answer=escape_raw_html("\n\n".join(filter(None, [summary, details]))),  # answers echo user text; none of it may become live HTML
            summary=escape_raw_html(summary),
            details=escape_raw_html(details),
            language=turn.language,
            mode="offline",
            tool_calls=[ToolCall(**o.model_dump()) for o in turn.calls],
            sources=turn.sources,
        )

    def _body(self, turn: Turn, previous: list[ToolCall] = ()) -> str:
        calls_before = len(turn.calls)
        body = _precision_first(turn, route(turn, self.understanding, previous))
        if turn.reading.intent not in GUARDED:  # "tensor parallel over NVLink on four 4090s?": the missing link is the first sentence
            body = capability.premise_first(turn, body)
            body = traps.lead(turn, body)  # what the calculation cannot see (consumer cards for a bank, a price far off the market) leads
            body = measure_parts.judge_limits(turn, body)  # "budget $150k": the figure computed against the limit stated, first
        if any(call.name != "search_knowledge" for call in turn.calls[calls_before:]):
            body += _unused(turn)  # a calculation: every stated value was used or is named here
        return body

    def _separate_questions(self, turn: Turn, earlier: list[str]) -> list[tuple[Turn, bool]]:
        """The questions of a message that asks two to four things (advisor/nlu/question_parts.py), each read after
        the ones before it, so "what does moving cost?" keeps the 910B of the first, with whether it runs a
        calculation; [] for one question, however many sentences. The same calculation asked twice is one question
        told in steps; a follow-up part runs a calculation only after an earlier part ran one ("how many engineers would the port take?" after
        an unsure first part is its own question, not the cost calculation the classifier guessed from that part)."""
        pieces = question_parts(turn.message)
        reading = turn.reading
        if not pieces or reading.intent in GUARDED or (reading.intent == "troubleshoot" and reading.confidence >= MIN_CONFIDENCE):
            return []
        if reading.follow_up and reading.task == "troubleshoot":  # "is that the bottleneck? is it the missing NVLink?": more of one report
            return []
        if turn.ask.follow_up_subject and {follow_up_subject(piece) for piece in pieces} <= {turn.ask.follow_up_subject.name, None}:
            return []  # "how much power would that draw? does it fit in a 15 kW rack?": one subject of the thread, one answer
        if concept_plan.asks_equivalent(turn):  # "can the 910B replace our A100s, and what does the port cost?": one answer holds both halves
            return []  # a pasted log with its questions is one report; an unsure "troubleshoot" is often a list of strategy questions
        if reading.intent == "facility" and turn.ask.parts:  # "do two servers fit a 12 kW rack? what about cooling?": one site plan
            return []  # answers every site measure asked, one lead each (facility.render.lead_keys), never "no answer of its own"
        if turn.ask.asks_price_trend or turn.ask.compares_rent_tiers:  # "will rents drop? should we sign for a year?": the trend answer
            return []  # holds the commitment too; "Vast, or stay on AWS?" is one comparison of the tiers named, however many sentences
        parts, calculations = [], set()
        for index, piece in enumerate(pieces):
            before = earlier + pieces[:index]
            reading = self.understanding.read(piece, before)
            task = reading.task if reading.follow_up else reading.intent
            part = Turn(piece, reading, turn.registry, turn.catalog, turn.calls, turn.sources, turn.assumptions, earlier=before)
            # "swap to 64 H100? how much faster?" after a training time: a first part that changes the thread's values re-runs that calculation
            reruns = index == 0 and bool(dialogue_plan.changes(part))
            calculates = _calculates(reading, task) and task != "specs" and (not reading.follow_up or bool(calculations) or reruns)
            if _told_in_steps(part, calculates, calculations, turn.reading):  # "…at 30%? what does that mean for the verdict?": one re-run
                return []
            if calculates and task in calculations:  # the same calculation again: told in steps, unless it asks something of its own
                if not dialogue_plan.asks_its_own(part, task):
                    return []
                # "which card? and its yearly running cost?": a new subject of the configuration the earlier part gives is
                # calculated on that configuration (the router's new-subject route); any other question of its own is not
                calculates = dialogue_plan.asks_new_subject(part, task, TASKS)
            if calculates:  # a spec sheet per aspect answers none of them: "Gaudi 3 vs H100: tooling, cost?" is answered from the cards
                calculations.add(task)
            parts.append((part, calculates))
        return parts

    def _part_body(self, part: Turn, calculates: bool, after_part: bool = False) -> str:
        """One part of a several-question message: a calculation runs; anything else (a judgement, an explanation,
        an aside the classifier cannot place alone: "and training?") is answered from the cards, in the thread of the
        parts before it, with a card no earlier part was answered with."""
        if calculates:
            return self._body(part)
        question = dialogue_plan.with_context(part, after_part)  # "…A100? what are the risks?": the risks of that
        return answer_parts.without_calculation(
            part, lambda part: capability.premise_first(part, knowledge.concept(part, question=question, in_thread=True, answered=knowledge.cards_cited(part)))
        )


def _measure_body(part: Turn) -> str:
    """One measure's part of a several-measure question: its calculation's answer, with any stated limit it meets judged.
    A site measure of a message that names no cards is worked out on the configuration the answer concluded with ("which
    GPU for an 8B, and its yearly power bill?": the bill of the card recommended, not of a default server); a memory or
    speed part sizes the model as asked."""
    site = part.reading.task == dialogue_plan.FACILITY_TASK and not part.entities.gpus
    layout = setup_question.layout_of(part, part.calls) if site else None
    if layout is not None:
        asked = part.ask  # the part's own measure (measure_parts.part_turn), kept over the Ask read again on the carried turn
        part = dialogue_plan.carried(part, layout, part.reading.task)
        part.ask = asked
    return measure_parts.judge_limits(part, TASKS[part.reading.task](part))


# Tools that look an answer up rather than calculate one: a follow-up they answer keeps nothing "as before"
LOOKUPS = frozenset({"search_knowledge", "check_capability"})


def _calculates(reading: Reading, task: str | None) -> bool:
    """A reading sure enough of a calculation to run it (not a refusal, not a concept question)."""
    return reading.intent not in GUARDED and task in TASKS and reading.confidence >= MIN_CONFIDENCE


def _told_in_steps(part: Turn, calculates: bool, calculations: set[str], whole: Reading) -> bool:
    """A later part that names nothing and states no value, read as the thread of a calculation an earlier part runs,
    when the classifier cannot place it alone or the whole message continues that calculation ("and at 30% use? does
    that change the verdict?"): it asks what that re-run says, so the message is one question."""
    reading = part.reading
    if calculates or reading.task not in calculations or part.ask.named or dialogue_plan.asks_its_own(part, reading.task):
        return False
    return reading.confidence < MIN_CONFIDENCE or (whole.follow_up and whole.task == reading.task)


def _part_limit(opening: str, parts: int) -> int:
    """Screen lines each part of a several-question answer keeps above the fold: one screen (FOLD_LINES) shared by the
    opening line that answers every part and the parts themselves; each part keeps at least its heading and verdict."""
    used = sum(screen_lines(block) for block in opening.split("\n\n") if block.strip())
    return max((FOLD_LINES - used) // max(parts, 1) - 1, 1)  # a part's heading takes a line of its share


def _fold_part(heading: str, body: str, limit: int) -> tuple[str, str]:
    """One part under its heading: the heading and the part's verdict always above the fold, the rest as fits ``limit``;
    what goes below keeps the heading too, so the details read part by part."""
    shown, below = fold(body, limit, cut_first=True)
    return f"{heading}\n\n{shown}", (f"{heading}\n\n{below}" if below else "")


def _plain(text: str) -> str:
    """An answer without its emphasis marks or spacing, to compare what a reader sees."""
    return " ".join(text.replace("**", "").split())


def _repeats_last_answer(summary: str, message: str, history: list[ChatTurn]) -> bool:
    """Everything above the fold is the last answer again although the user wrote something else (a follow-up whose
    value or question was not read): reprinting it would answer nothing. A line the follow-up added ("Already tried:",
    "Noted for the next calculation") makes it a new answer."""
    last_answer = next((t.content for t in reversed(history) if t.role == "assistant"), "")
    last_question = next((t.content for t in reversed(history) if t.role == "user"), "")
    if not last_answer or " ".join(message.split()).lower() == " ".join(last_question.split()).lower():
        return False
    shown = _plain(escape_raw_html(summary))
    return bool(shown) and _plain(last_answer).startswith(shown)


def _previous_calls(history: list[ChatTurn]) -> list[ToolCall]:
    """The tool calls behind the last answer, when the history carries them (a client that sends them back)."""
    return next((list(t.tool_calls) for t in reversed(history) if t.role == "assistant"), [])


def _calculated(turn: Turn) -> bool:
    return any(call.name not in LOOKUPS for call in turn.calls)


def _precision_first(turn: Turn, body: str) -> str:
    """A precision the person did not ask for (the one a pasted checkpoint name states, or the one the model
    ships in) changes every figure, so it follows the verdict line at once rather than sitting among the
    details; the verdict itself stays the first line (what was asked is answered before how)."""
    basis = next((found for call in turn.calls if call.ok and call.result
                  if (found := call.result.get("precision_basis") or (call.result.get("estimate") or {}).get("precision_basis"))), None)  # fmt: skip
    if basis is None:
        basis = _pasted_checkpoint_basis(turn)
    if basis is None:
        return body
    lead = turn.text(basis)
    kept = [line for line in body.split("\n") if line.lstrip("-ℹ️ ").strip() != lead]  # said once, under the verdict
    first = next((n for n, line in enumerate(kept) if line.strip()), 0)
    return "\n".join([*kept[: first + 1], lead, *kept[first + 1 :]])


def _pasted_checkpoint_basis(turn: Turn) -> Text | None:
    """The reader splits a pasted "Org/Name-GPTQ-Int8" into a model and a precision before any tool sees it; when
    a tool was called with exactly that pair, the answer still says it sized that edition of that model."""
    asked = {(call.args.get("model"), call.args.get("precision")) for call in turn.calls if call.ok}
    for word in message_words(turn.message):
        pasted = checkpoint_precision_note(word, turn.catalog)
        if pasted is not None and (pasted[0].id, pasted[1]) in asked:
            return pasted[2]
    return None


def message_words(text: str) -> list[str]:
    """Runs of the characters a Hugging Face id or an Ollama tag is written with ("can-it-run-Qwen/Qwen2.5-7B-AWQ?" →
    ["Qwen/Qwen2.5-7B-AWQ"]), without a sentence's closing full stop or colon."""
    words, current = [], []
    for char in text + " ":
        if char in CHECKPOINT_CHARACTERS:
            current.append(char)
        elif current:
            words.append("".join(current).rstrip(".:"))
            current = []
    return [word for word in words if word]


def _quoted(question: str) -> str:
    return question if len(question) <= QUOTED_CHARS else question[: QUOTED_CHARS - 1] + "…"




def _unused(turn: Turn) -> str:
    """Name a value the user stated in this message that no tool used only when it would change the answer, with
    the reason (an ignored precision, a deadline without data, an unknown card...); otherwise stay silent: a note
    that "'24G of memory' is not needed" contradicts a question that plainly meant it."""
    stated = turn.reading.frame
    lines = []
    for slot in stated.names():
        if slot in NOT_REPORTED or slot in turn.slots.used or slot in turn.entities.used:
            continue
        if slot == "server_count" and stated.has("gpus_per_server") and "gpu_count" in turn.slots.used:  # "two servers of 8 cards" made the total
            continue
        reason = turn.slots.unusable.get(slot) or UNUSED_BECAUSE.get(slot)
        why = turn.ignored.get(slot) or (turn.t(*reason) if reason else None)
        if why is None:  # nothing the user could change by knowing it: silence
            continue
        lines.append(f"- {said(slot, stated.surface(slot), turn.language)}: {why}")
    if not lines:
        return ""
    return "\n\n**" + turn.t(*WORDING.pair("also_mentioned")) + "**\n" + "\n".join(lines)
