"""Offline mode: a deterministic bilingual planner that calls the same tools as the LLM agent.

The understanding layer reads the message in its conversation (intent with confidence, slots
with roles, the task a follow-up continues); the policy here picks the answer: a confident
task with its slots → the tools; a missing model → the stated assumption plus a question for
it; low confidence → a concept answer from the knowledge base and the closest calculator.
Every slot the user stated either reaches a tool or is named in the answer with the reason.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from pathlib import Path

from advisor.contract import AdvisorResponse, ChatTurn, ToolCall
from advisor.markdown import escape_raw_html, fold, number, sources_section
from advisor.nlu.dialogue import restated_question
from advisor.nlu.facets import SPECS
from advisor.nlu.pipeline import PIPELINE
from advisor.nlu.question_parts import question_parts
from advisor.nlu.reader import TOPIC, Understanding, shared_understanding
from advisor.nlu.reading import Reading
from advisor.nlu.slot_labels import said
from advisor.offline.answers import (
    capability,
    compliance,
    costs,
    efficiency,
    facility,
    followup,
    guard,
    knowledge,
    payback,
    runnable,
    serving,
    sizing,
    specs,
    trouble,
)
from advisor.offline.answers import parts as answer_parts
from advisor.offline.answers.workload import model_of
from advisor.offline.turn import Turn
from advisor.registry import Registry
from knowledge.bilingual import Text
from knowledge.catalog import Catalog, load_catalog
from tools.models.resolve import checkpoint_precision_note

Handler = Callable[[Turn], str]
TASK_HANDLERS: dict[str, Handler] = {
    "recommend": serving.or_sized_by_load(sizing.recommend),  # "how many H100s for TTFT < 500 ms?": the load decides, not memory alone
    "memory": capability.first(serving.or_sized_by_load(sizing.memory, weighs_precision=False), unless_sized=True),
    # "what can I run on two 3090s?" names no model: the largest that fit, per precision
    "max_fit": capability.first(  # "how many MIG slices does an H100 take?" asks the card, not the largest model
        serving.or_sized_by_load(
            lambda turn: sizing.memory(turn) if model_of(turn) else (runnable.answer(turn) or sizing.memory(turn)), weighs_precision=False
        ),
        unless_sized=True,
    ),
    "specs": capability.first(specs.answer),  # "does the L40S do FP8?": the verdict, not the whole sheet
    "serving_speed": serving.answer,
    "training_time": costs.training_time,
    "tco": costs.tco,
    "troubleshoot": serving.squeeze_first(trouble.answer),  # a serving slowdown leads with the KV cache left after the weights
    "facility": facility.answer,
}
# Below this the classifier is guessing: a knowledge answer plus the closest calculator is safer
# than a confident table for a question that was not asked (both thresholds declared in nlu/pipeline.yaml).
MIN_CONFIDENCE = PIPELINE.classify.min_confidence
CALCULATION_MASS = PIPELINE.classify.calculation_mass
GUARDED = ("injection", "out_of_scope", "greeting")
GUARD_CONFIDENCE = PIPELINE.classify.guard_confidence  # below this a refusal, an off-topic reply or a greeting gives way
WHERE_FROM = (
    "Here is where the figure comes from: the same calculation, each line with its formula or source.",
    "这个数字的来历如下：同一个计算，每一行都附了公式或出处。",
)
QUOTED_CHARS = 120
SENTENCE = re.compile(r"(?<=[。！？!?；;\n])")
NOT_REPORTED = {"gpus_per_server"}
CHECKPOINT_CHARACTERS = frozenset(string.ascii_letters + string.digits + "/-_.:")


class OfflinePlanner:
    def __init__(self, registry: Registry, catalog: Catalog | None = None, cache_dir: Path | None = None):
        self.registry = registry
        self.catalog = catalog or load_catalog()
        self.understanding = shared_understanding(cache_dir) if catalog is None else Understanding(catalog, cache_dir)

    def answer(self, message: str, history: list[ChatTurn]) -> AdvisorResponse:
        message = message if isinstance(message, str) else ""
        earlier = [t.content for t in history if t.role == "user"]
        reading = self.understanding.read(message, earlier)
        turn = Turn(message=message, reading=reading, registry=self.registry, catalog=self.catalog, earlier=earlier)
        parts = self._separate_questions(turn, earlier)
        if parts:  # "can X run Y? and what does moving cost?": each question its own verdict, all in the opening line
            bodies = [self._part_body(part, calculates) for part, calculates in parts]
            folded = [fold(f"**{index}.** _{_quoted(part.message)}_\n\n{body}") for index, ((part, _), body) in enumerate(zip(parts, bodies, strict=True), 1)]
            summary, details = "\n\n".join(s for s, _ in folded), "\n\n".join(d for _, d in folded if d)
            summary = "\n\n".join(filter(None, [answer_parts.combined(turn, bodies), summary]))
        else:
            summary, details = fold(self._body(turn))  # the verdict and what fits on a screen; tables, defaults and sources below
            if _calculated(turn):  # "and with 16?": the first sentence says which value the re-run changed
                summary = followup.lead(turn) + summary
        if turn.slots.peak_load:  # "500 daily users": the peak share taken, shown as an assumption that can change the verdict
            turn.assumptions.append(turn.text(turn.slots.peak_load.assumption()))
        below = [details] if details else []
        if turn.assumptions:
            below.append("**" + turn.t("Assumptions", "假设") + "**\n" + "\n".join(f"- {a}" for a in turn.assumptions))
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

    def _body(self, turn: Turn) -> str:
        calls_before = len(turn.calls)
        body = _precision_first(turn, self._route(turn))
        if turn.reading.intent not in GUARDED:  # "tensor parallel over NVLink on four 4090s?": the missing link is the first sentence
            body = capability.premise_first(turn, body)
        if any(call.name != "search_knowledge" for call in turn.calls[calls_before:]):
            body += _unused(turn)  # a calculation: every stated value was used or is named here
        return body

    def _separate_questions(self, turn: Turn, earlier: list[str]) -> list[tuple[Turn, bool]]:
        """The questions of a message that asks two to four things (advisor/nlu/question_parts.py), each read after
        the ones before it, so "what does moving cost?" keeps the 910B of the first, with whether it runs a
        calculation; [] for one question, however many sentences. The same calculation asked twice is one question
        told in steps; a follow-up part runs a calculation only after an earlier part ran one ("移植要多少人力？" after
        an unsure first part is its own question, not the cost calculation the classifier guessed from that part)."""
        pieces = question_parts(turn.message)
        reading = turn.reading
        if not pieces or reading.intent in GUARDED or (reading.intent == "troubleshoot" and reading.confidence >= MIN_CONFIDENCE):
            return []  # a pasted log with its questions is one report; an unsure "troubleshoot" is often a list of strategy questions
        parts, calculations = [], set()
        for index, piece in enumerate(pieces):
            before = earlier + pieces[:index]
            reading = self.understanding.read(piece, before)
            task = reading.task if reading.follow_up else reading.intent
            calculates = _calculates(reading, task) and task != "specs" and (not reading.follow_up or bool(calculations))
            if calculates:  # a spec sheet per aspect answers none of them: "Gaudi 3 vs H100: tooling, cost?" is answered from the cards
                if task in calculations:
                    return []
                calculations.add(task)
            parts.append((Turn(piece, reading, turn.registry, turn.catalog, turn.calls, turn.sources, turn.assumptions, earlier=before), calculates))
        return parts

    def _part_body(self, part: Turn, calculates: bool) -> str:
        """One part of a several-question message: a calculation runs; anything else (a judgement, an explanation,
        an aside the classifier cannot place alone: "and training?") is answered from the cards, in the thread of the
        parts before it, with a card no earlier part was answered with."""
        if calculates:
            return self._body(part)
        return capability.premise_first(part, knowledge.concept(part, in_thread=True, answered=knowledge.cards_cited(part)))

    def _route(self, turn: Turn) -> str:
        unreadable = guard.unreadable(turn)
        if unreadable:
            return unreadable
        reading = turn.reading
        guarded = sum(p for intent, p in reading.probabilities.items() if intent in GUARDED)
        if all(m == turn.message for m in reading.task_messages):  # a first message continues nothing: its follow-up share is noise
            guarded /= max(1.0 - reading.probabilities.get("follow_up", 0.0), GUARD_CONFIDENCE)
        if reading.intent in GUARDED and max(reading.confidence, guarded) < GUARD_CONFIDENCE:  # an unsure refusal is worse than an answer
            reading.settle_besides(GUARDED)  # but "ok unrelated, a pasta recipe?" (off-topic 0.5, greeting 0.4) is no question of ours
        if reading.intent == "injection":
            return guard.injection(turn) + self._beside_injection(turn)
        if reading.intent == "out_of_scope":
            return guard.out_of_scope(turn)
        if reading.intent == "greeting":
            return guard.greeting(turn)
        task = reading.task if reading.intent == "follow_up" else reading.intent
        if serving.checks_observed_speed(turn):  # "15 tok/s per user with 32 users, is that normal?": a verdict on the measurement
            return serving.observed_verdict(turn)
        if task == "tco" and payback.asked_for_line(turn):  # "托管费呢" after a rent-or-buy answer: that line, not the facility side of it
            return TASK_HANDLERS[task](turn)
        if reading.intent != "troubleshoot" and compliance.asks_compliance(turn.ask.named):
            return knowledge.concept(turn, offer=task, in_thread=True)  # "ship A100 racks to a Hangzhou colo?": may it go there at all
        if _asks_another_facet(reading, task):  # "can a US firm buy H20?" names a card but asks whether it may be bought
            return knowledge.concept(turn, offer=task, in_thread=True)
        if reading.intent == "troubleshoot":  # a pasted log is diagnosed however unsure the classifier is
            if efficiency.judges_mfu(turn, turn.ask.named):  # "MFU 38% on 512 H100s, normal?": judged first
                if not efficiency.is_low(turn):
                    return knowledge.concept(turn)  # nothing to diagnose: the verdict and what MFU depends on
                return efficiency.verdict(turn) + "\n\n" + TASK_HANDLERS["troubleshoot"](turn)  # low: where the time goes
            return TASK_HANDLERS["troubleshoot"](turn)
        if task != "tco" and facility.asks_fabric(turn):  # "32 nodes of 8 GPUs: how many leaf and spine switches?" is a count
            return facility.answer(turn)
        if task not in ("facility", "tco", "training_time") and facility.takes_over(turn):  # "4路16A 220V 能放几台8卡4090" is no spec card
            return facility.answer(turn)
        if reading.follow_up and task == TOPIC:
            if self._asks_anew(turn):  # "why not just use an API?" after "does int4 hurt quality?": its own question
                return knowledge.concept(turn, in_thread=True)
            return knowledge.concept(turn, question=self._topic(turn), asked_first=reading.task_messages[0])
        if task is None and reading.follow_up:
            task = _task_from_slots(turn)
        if task not in TASK_HANDLERS or (reading.confidence < MIN_CONFIDENCE and not _unsure_which_calculation(reading)):
            return knowledge.concept(turn, offer=task if task in TASK_HANDLERS else None)
        if task == "tco" and facility.asks_only_electricity(turn):  # "一年电费多少（64台8卡A100）": the bill and the load behind it
            task = "facility"
        if reading.follow_up and not reading.frame.names() and turn.ask.asks_why:
            body = TASK_HANDLERS[task](turn)
            return turn.t(*WHERE_FROM) + _largest_part(turn) + "\n\n" + body
        return TASK_HANDLERS[task](turn)


    def _asks_anew(self, turn: Turn) -> bool:
        """A follow-up to a concept answer that asks about another side of the thread (its cost, its software,
        whether to use it at all) than the question first asked: a new question, answered in the thread's context."""
        facet = turn.reading.facet.name
        return facet != SPECS and facet != self.understanding.read_one(turn.reading.task_messages[0]).facet.name

    def _topic(self, turn: Turn) -> str:
        """The open concept question as the follow-ups have changed it."""
        first, *changes = turn.reading.task_messages
        question = self.understanding.read_one(first)
        for change in changes:
            question = self.understanding.read_one(restated_question(question, self.understanding.read_one(change)))
        return question.text

    def _beside_injection(self, turn: Turn) -> str:
        """What is left once the injection sentences are removed (a question, a pasted log) still gets its answer."""
        kept = [s for s in SENTENCE.split(turn.message) if s.strip() and self.understanding.read_one(s).intent != "injection"]
        rest = "".join(kept)
        if not rest.strip():
            return ""
        reading = self.understanding.read_one(rest)
        if reading.confidence < MIN_CONFIDENCE or reading.intent not in TASK_HANDLERS:
            return ""
        reading.task, reading.state = reading.intent, reading.frame
        inner = Turn(rest, reading, turn.registry, turn.catalog, turn.calls, turn.sources, turn.assumptions)
        return "\n\n" + TASK_HANDLERS[reading.intent](inner)


def _calculates(reading: Reading, task: str | None) -> bool:
    """A reading sure enough of a calculation to run it (not a refusal, not a concept question)."""
    return reading.intent not in GUARDED and task in TASK_HANDLERS and reading.confidence >= MIN_CONFIDENCE


def _unsure_which_calculation(reading: Reading) -> bool:
    """The classifier spreads its probability over calculations ("does the A100 do FP8?": memory or specs), not
    between a calculation and a concept question: the likeliest calculation answers, it is no guess."""
    if reading.intent not in TASK_HANDLERS:
        return False
    return sum(p for intent, p in reading.probabilities.items() if intent in TASK_HANDLERS) >= CALCULATION_MASS


# Tools that look an answer up rather than calculate one: a follow-up they answer keeps nothing "as before"
LOOKUPS = frozenset({"search_knowledge", "check_capability"})


def _calculated(turn: Turn) -> bool:
    return any(call.name not in LOOKUPS for call in turn.calls)


def _asks_another_facet(reading: Reading, task: str | None) -> bool:
    """The message asks a side of its subject that the calculation it reads as would miss: the facet takes that
    task over ("is the 910B mature enough to train on?" is no spec sheet), or a follow-up that states no values of
    its own asks a new side of the thread ("can this go in a normal server room?" after a sizing)."""
    if reading.facet.overrides("troubleshoot" if reading.intent == "troubleshoot" else task):
        return True
    # a troubleshooting thread gathers facts ("the room runs hot"): they go on into the diagnosis
    return reading.follow_up and task in TASK_HANDLERS and task != "troubleshoot" and reading.facet.name != SPECS and not reading.frame.names()


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
    """Runs of the characters a Hugging Face id or an Ollama tag is written with ("能跑Qwen/Qwen2.5-7B-AWQ吗" →
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


def _largest_part(turn: Turn) -> str:
    """The line item that weighs most in the itemised result, with its formula: most of a "why so much?"."""
    items = [i for call in turn.calls for i in (call.result or {}).get("items", []) if isinstance(i, dict) and "value" in i]
    if not items:
        return ""
    top = max(items, key=lambda i: i["value"])
    return turn.t(" The largest part is {label}: {value} {unit} (`{formula}`).", "占比最大的一项是{label}：{value} {unit}（`{formula}`）。").format(
        label=turn.text(top["label"]), value=number(top["value"], 2), unit=top["unit"], formula=turn.formula(top)
    )


def _task_from_slots(turn: Turn) -> str | None:
    """A follow-up with nothing before it: a model means sizing, a GPU means specs."""
    if turn.entities.models or turn.entities.params:
        return "recommend"
    if turn.entities.gpus:
        return "specs"
    return None


UNUSED_BECAUSE = {
    "gpu_form": ("the catalog has no such variant of the GPU in question", "目录里这款卡没有这个版本"),
    "other_gpu": ("the catalog has no figures for this card; tell me its memory (e.g. “12 GB”) and the fit is checked against that",
                  "目录里没有这款卡的数据；告诉我它的显存（如“12GB”），就按显存判断能否放下"),
    "audience": ("speed is sized by how many people ask at the same time (the concurrency), not by how many may use it",
                 "速度按同时提问的人数（并发）计算，不按能用它的总人数"),
    "discount": ("a rental discount is applied in the rent-or-buy comparison; ask “rent or buy?” to see it",
                 "租用折扣用在“租还是买”的对比里；问“租还是买”即可看到"),
    "deadline": ("a deadline is checked by a training-time estimate, which needs the amount of training data; tell me how many tokens and I will say which setup finishes in time",
                 "期限要用训练时长来核对，这需要训练数据量；告诉我有多少 token，我就能算出哪套配置能按时跑完"),
    "epochs": ("epochs multiply the training data in a training-time estimate; ask how long the run takes to see it",
               "训练轮数用在训练时长估算里（乘以数据量）；问“要训多久”即可看到"),
}


def _unused(turn: Turn) -> str:
    """Name a value the user stated in this message that no tool used only when it would change the answer, with
    the reason (an ignored precision, a deadline without data, an unknown card...); otherwise stay silent: a note
    that "'24G显存' is not needed" contradicts a question that plainly meant it."""
    stated = turn.reading.frame
    lines = []
    for slot in stated.names():
        if slot in NOT_REPORTED or slot in turn.slots.used or slot in turn.entities.used:
            continue
        if slot == "server_count" and stated.has("gpus_per_server") and "gpu_count" in turn.slots.used:  # "两台8卡" made the total
            continue
        reason = turn.slots.unusable.get(slot) or UNUSED_BECAUSE.get(slot)
        why = turn.ignored.get(slot) or (turn.t(*reason) if reason else None)
        if why is None:  # nothing the user could change by knowing it: silence
            continue
        lines.append(f"- {said(slot, stated.surface(slot), turn.language)}: {why}")
    if not lines:
        return ""
    return "\n\n**" + turn.t("You also mentioned", "您还提到了") + "**\n" + "\n".join(lines)
