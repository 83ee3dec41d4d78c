"""Diagnose a GPU problem from a symptom description or a pasted log, using the rule book.

Pure: the rules come in as a ``RuleBook``; the text is scanned once per compiled regex, once per
parser and once per keyword, so a 200 KB log takes milliseconds. Findings are ranked by
``rule.weight`` × strength of the evidence (log/parser evidence counts fully, a keyword in prose
counts ``KEYWORD_STRENGTH``); the weight is raised by the stated setup a rule names in ``likely_when`` and
capped by what it names in ``unlikely_when`` (one NVLink node: not the network between nodes). Every finding
carries the lines that triggered it. A yes/no question the text asks ("should I raise the timeout?") comes back
in ``answers`` with the leading cause's verdict, and steps that verdict already covers are not listed again.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.wording import shipped
from tools.troubleshoot.parsers import EXCERPT_CHARS, PARSERS, ParsedRecord, Value
from tools.troubleshoot.parsers.records import prose
from tools.troubleshoot.rulebook import Action, FigureReading, Lever, Rule, RuleBook, RuleMatcher, ThreadFact, YesNoQuestion
from tools.troubleshoot.stated import StatedSetup

TEXT = shipped("troubleshoot_text.yaml")

MAX_INPUT_BYTES = 200 * 1024
CHECKLIST_FAMILY = "checklist"  # symptom-family checklists: the answer when nothing more specific matched
KEYWORD_STRENGTH = 0.6  # a word in prose is weaker evidence than a matching log line
# Records that come from a sentence the user typed, not from a pasted log: they are the user's words, not evidence to quote.
DESCRIBED_KINDS = {
    ("symptoms", "gpu_util"), ("symptoms", "temperature"), ("symptoms", "setting"), ("symptoms", "bandwidth"),
    ("xid", "mention"),
}
MAX_EVIDENCE = 3
SUSPECT_LISTED = 0.5  # a suspected cause scoring at least half the leading one's is "possibly"; below that, "probably not"
# GPUs sold in one server: a job on this many or fewer, with no node count said, is read as one server (an 8× H100
# job is an HGX box far more often than two half-filled nodes), and the answer says so.
ONE_SERVER_GPUS = 8
MIB_PER_GIB = 1024
GB_PER_GIB = 2**30 / 1e9
_CJK = re.compile(r"[\u4e00-\u9fff]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")  # keeps \t \n \r \f and ESC (coloured logs)


class TroubleshootRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        description=shipped("tool_field_descriptions.yaml").entry("troubleshoot.text").format(kb=MAX_INPUT_BYTES // 1024)
    )
    language: Literal["en", "zh"] | None = Field(None, description="Reply language; detected from the text when omitted.")
    model: str | None = Field(None, description="Model id being trained/served, echoed in the OOM memory hint.")
    max_findings: int = Field(5, ge=1, le=20, description="How many ranked diagnoses to return.")
    setup: StatedSetup | None = Field(
        None, description="What the user stated about the job (nodes, GPUs, batch, workers…); it ranks a symptom's causes."
    )


class Evidence(BaseModel):
    line: int = Field(description="1-based line number in the text as the user pasted it.")
    excerpt: str = Field(description="The matching line, trimmed.")
    via: Literal["parser", "pattern", "keyword"] = Field(
        description="What matched: a parser record, a log regex or a keyword."
    )
    values: dict[str, Value] = Field(default_factory=dict, description="Numbers and labels parsed from this evidence.")
    source: Literal["log", "description"] = Field(
        "log", description="'description' when the line is the user's own account of the problem, not a pasted log."
    )


class Finding(BaseModel):
    rule_id: str
    family: str
    title: Text
    score: float = Field(description="Rule weight × evidence strength, 0–1; findings are sorted by it.")
    evidence: list[Evidence]
    parsed: dict[str, Value] = Field(default_factory=dict, description="Parsed numbers from the strongest evidence.")
    causes: list[Text]
    actions: list[Action]
    docs: list[str] = Field(default_factory=list, description="Knowledge doc ids with background.")
    meta: dict[str, str] = Field(default_factory=dict)
    symptom: str | None = Field(None, description="The described symptom this cause was ranked for, if any.")
    stated: dict[str, Value] = Field(
        default_factory=dict, description="Stated-setup facts that made this cause likelier (e.g. nodes: 2)."
    )
    new_finding: Text | None = Field(
        None, description="What this cause's evidence means when it arrives in a later message of a thread."
    )
    verdict: Text | None = Field(None, description="The first sentence when this rule judges a stated figure.")
    assumption: Text | None = Field(None, description="The cut-off the figures were judged by, when no source gives it (an "
                                    "assumption the answer says in its details, never as a fact).")

    @property
    def described(self) -> bool:
        """Every piece of evidence is the user's description: there is no log line to quote."""
        return all(item.source == "description" for item in self.evidence)


class MemoryHint(BaseModel):
    """Figures from the last CUDA OOM message, for cross-checking with the memory estimator."""

    gpu_index: int | None = None
    format: str = Field(description="PyTorch message era: '0.4', '1.0-1.3', '1.4-2.0', '2.1+' or 'other'.")
    requested_gib: float | None = Field(None, description="'Tried to allocate' size.")
    capacity_gib: float | None = Field(
        None, description="Device total as CUDA reports it (an 80 GB card shows about 79.1–79.3 GiB)."
    )
    capacity_gb: float | None = Field(None, description="capacity_gib in decimal GB, comparable with the GPU catalog.")
    free_gib: float | None = None
    allocated_gib: float | None = Field(None, description="Live tensors allocated by PyTorch.")
    reserved_unallocated_gib: float | None = Field(None, description="Cached by the allocator but holding no tensors.")
    this_process_gib: float | None = Field(None, description="Whole process incl. CUDA context and non-PyTorch memory.")
    other_processes_gib: float | None = Field(None, description="Memory held by other processes on the same GPU.")
    model: str | None = Field(None, description="Model id from the request, if any.")


class QuestionAnswer(BaseModel):
    """A yes/no question asked inside the report, answered by the leading cause's verdict (or the question's own)."""

    id: str
    verdict: Text
    procedure_title: Text | None = None
    procedure: list[Action] = Field(default_factory=list, description="Steps that settle it (the card-or-slot swap test).")
    from_cause: bool = Field(False, description="The verdict is the leading cause's own: its lead need not say it again.")


class StatedFact(BaseModel):
    """A fact the text states in words ("always the same node"), where it was said, and what it means."""

    id: str
    line: int = Field(description="1-based line of the first cue, as the user pasted it.")
    meaning: Text
    sets: dict[str, Value] = Field(default_factory=dict, description="Stated-setup fields it set (they re-rank the causes).")
    pulls: list[Lever] = Field(default_factory=list, description="Levers it says were already pulled.")


class Diagnosis(BaseModel):
    language: Literal["en", "zh"]
    findings: list[Finding] = Field(description="Ranked, most likely first; empty when nothing matched.")
    truncated: bool = Field(
        description=f"True when the input exceeded {MAX_INPUT_BYTES // 1024} KB and only its end was analysed."
    )
    input_bytes: int
    analyzed_bytes: int
    memory_hint: MemoryHint | None = None
    notes: list[Text] = Field(default_factory=list)
    stated: dict[str, Value] = Field(
        default_factory=dict, description="The setup the causes were ranked with: the request's and what the text says (nics_per_node…)."
    )
    measured: dict[str, Value] = Field(
        default_factory=dict,
        description="Figures the user measured, e.g. busbw_gbs (NCCL all_reduce bus bandwidth); check them with check_measured.",
    )
    answers: list[QuestionAnswer] = Field(
        default_factory=list, description="Yes/no questions the text asks, each with its verdict; say these first."
    )
    readings: list[Text] = Field(
        default_factory=list, description="What a described symptom's figure measures (GPU-Util is time-active, not SM use)."
    )
    facts: list[StatedFact] = Field(
        default_factory=list, description="Facts stated in words (the same node, hours in, a timeout already raised), first line first."
    )
    tried: list[Lever] = Field(default_factory=list, description="Levers the text says were already pulled: never suggest them.")
    stated_at: dict[str, int] = Field(
        default_factory=dict, description="Setup field → line of the text that stated it (settings and facts said in words)."
    )
    assumed: list[str] = Field(default_factory=list, description="Setup fields filled by a default, not stated (see notes).")


def diagnose(request: TroubleshootRequest, rules: RuleBook) -> Diagnosis:
    """Rank the rule book's diagnoses for ``request.text``; raise ``AdvisorError`` only for empty/binary input."""
    text, input_bytes, dropped_lines = _analysed_text(request.text)
    lines = text.split("\n")
    lowered = _Lowered(text.casefold())
    records = {name: _index(PARSERS[name].function(text)) for name in rules.parsers()}
    facts = _facts_stated(rules.facts, lowered)
    stated_facts = {field: value for fact in facts for field, value in fact.sets.items()}
    in_text = _stated_in_text(records.get("symptoms", {}))
    setup = {**in_text, **stated_facts, **(request.setup.values() if request.setup else {})}
    if "speedup" in setup and isinstance(text_nodes := in_text.get("nodes"), float) and isinstance(setup.get("nodes"), float):
        setup["nodes"] = max(setup["nodes"], text_nodes)  # "from 1 node to 4": a speed-up compares two sizes, the job is the larger
    if stated_facts.get("fault_on_one_node") and setup.get("nodes") == 1.0:
        del setup["nodes"]  # "one node keeps failing / is slower" singles out a node of several: not a one-node job
    if isinstance(speedup := setup.get("speedup"), float) and isinstance(nodes := setup.get("nodes"), float) and nodes > 1:
        setup["scaling_pct"] = round(speedup / nodes * 100, 1)  # how much of linear scaling the added nodes kept
    one_server = "nodes" not in setup and isinstance(gpus := setup.get("gpus"), float) and 1 < gpus <= ONE_SERVER_GPUS
    if one_server:
        setup["nodes"] = 1.0
    asked = [question for question in rules.questions if _asks(question, lowered)]
    asked_ids = frozenset(question.id for question in asked)
    lowered = _without_suspicions(lowered, asked)
    findings = [
        finding for matcher in rules.matchers
        if (finding := _evaluate(matcher, text, lowered, lines, records, setup, asked_ids))
    ]  # fmt: skip
    readings = list({
        meaning.en: meaning for finding in findings if finding.described and (meaning := rules.rule(finding.rule_id).meaning)
    }.values())  # fmt: skip
    findings = _causes_for_symptoms(findings, rules, setup, asked_ids, records)
    findings = [
        finding for finding in findings
        if not rules.rule(finding.rule_id).ruled_out(setup) and not _excluded(rules.rule(finding.rule_id), lowered)
    ]  # fmt: skip
    if any(finding.family != CHECKLIST_FAMILY for finding in findings):
        findings = [finding for finding in findings if finding.family != CHECKLIST_FAMILY]
    findings.sort(key=lambda f: (-f.score, f.evidence[0].line))
    for finding in findings:  # report lines as numbered in what the user pasted
        for item in finding.evidence:
            item.line += dropped_lines
    for fact in facts:
        fact.line += dropped_lines
    tried = list(dict.fromkeys(lever for fact in facts for lever in fact.pulls))
    findings = [finding.model_copy(update={"actions": [a for a in finding.actions if a.lever not in tried]}) for finding in findings]
    analyzed_bytes = len(text.encode("utf-8", "replace"))
    truncated = analyzed_bytes < input_bytes
    memory_hint = _memory_hint(records.get("pytorch_oom", {}).get(None, []), request.model)
    return Diagnosis(
        language=request.language or ("zh" if _CJK.search(request.text[:4000]) else "en"),
        findings=findings[: request.max_findings],
        truncated=truncated,
        input_bytes=input_bytes,
        analyzed_bytes=analyzed_bytes,
        memory_hint=memory_hint,
        notes=_notes(truncated, input_bytes, dropped_lines, bool(findings)) + ([_one_server_note(setup["gpus"])] if one_server else []),
        stated=setup,
        measured=_measured(records.get("symptoms", {})),
        answers=[_answer(question, rules, findings, setup, memory_hint) for question in asked],
        readings=readings,
        facts=facts,
        tried=tried,
        stated_at={**_stated_lines(records.get("symptoms", {}), dropped_lines), **{
            field: fact.line for fact in reversed(facts) for field in fact.sets
        }},
        assumed=["nodes"] if one_server else [],
    )


def _facts_stated(facts: list[ThreadFact], lowered: str) -> list[StatedFact]:
    """The thread facts the text states, each at the line of its first cue, first line first."""
    ascii_text = lowered.isascii()
    stated = []
    for fact in facts:
        positions = [
            position for cue in fact.compiled_cues
            if (cue.isascii() or not ascii_text) and (position := _find_keyword(lowered, cue)) >= 0
        ]  # fmt: skip
        if positions:
            line = lowered.count("\n", 0, min(positions)) + 1
            stated.append(StatedFact(id=fact.id, line=line, meaning=fact.meaning, sets=fact.setup_values(), pulls=fact.pulls))
    return sorted(stated, key=lambda fact: fact.line)


def _excluded(rule: Rule, lowered: str) -> bool:
    """The text says something that rules this cause out (a watchdog timeout for a silent hang)."""
    ascii_text = lowered.isascii()
    return any(_find_keyword(lowered, phrase) >= 0 for phrase in rule.exclusions if phrase.isascii() or not ascii_text)


def _asks(question: YesNoQuestion, lowered: str) -> bool:
    ascii_text = lowered.isascii()
    return any(_find_keyword(lowered, cue) >= 0 for cue in question.compiled_cues if cue.isascii() or not ascii_text)


def _without_suspicions(lowered: _Lowered, asked: list[YesNoQuestion]) -> _Lowered:
    """The text with the words of a suspicion blanked out ("is it overheating?" names heat, it is no symptom of it): the
    causes are ranked by what the user describes, and the suspicion is judged against them."""
    masked = str(lowered)
    for question in asked:
        for cue in question.compiled_cues if question.suspects else ():
            while (position := _find_keyword(masked, cue)) >= 0:
                masked = masked[:position] + " " * len(cue) + masked[position + len(cue) :]
    return lowered if masked == lowered else _Lowered(masked)


def _suspect_answer(question: YesNoQuestion, findings: list[Finding], hint: MemoryHint | None = None) -> QuestionAnswer | None:
    """"Could it be thermal?": yes when a suspected cause leads, possibly when it is ranked below another, probably not when
    nothing described points at it; the reason is the cause that leads. A question that quotes the report's figures
    (``figures``: "is it fragmentation?" against the OOM message's reserved-but-unallocated and requested sizes) says them
    in its verdict when the message gave them all."""
    if not findings:
        return None
    figures = _question_figures(question, hint)
    # with the report's figures the suspected cause matched on them at all is no "absent": the figures decide it, the ranking what leads
    floor = 0.0 if figures else SUSPECT_LISTED * findings[0].score  # a cause far down the ranking is no reason to say "possibly"
    suspected = [f for f in findings if (f.family in question.suspects or f.rule_id in question.suspects) and f.score >= floor]
    key = "absent" if not suspected else "lead" if suspected[0] is findings[0] else "listed"
    if key == "lead" and findings[0].described:
        key = "likely_lead" if "likely_lead" in question.verdicts else key
    if figures and f"{key}_figures" in question.verdicts:
        key = f"{key}_figures"
    template = question.verdicts.get(key)
    if template is None:
        return None
    values = {"title": findings[0].title, "suspect": (suspected[0] if suspected else findings[0]).title}
    verdict = Text(**{lang: getattr(template, lang).format(**{k: getattr(v, lang) for k, v in values.items()}, **figures) for lang in ("en", "zh")})
    return QuestionAnswer(id=question.id, verdict=verdict)


def _question_figures(question: YesNoQuestion, hint: MemoryHint | None) -> dict[str, str]:
    """The report's figures a question's verdict quotes, shown in GiB as PyTorch prints them; {} unless every one was read."""
    if not question.figures or hint is None:
        return {}
    values = {field: getattr(hint, field, None) for field in question.figures}
    if not all(isinstance(value, float | int) for value in values.values()):
        return {}
    return {field: f"{value:,.2f}" for field, value in values.items()}


def _answer(question: YesNoQuestion, rules: RuleBook, findings: list[Finding], setup: dict[str, Value],
            hint: MemoryHint | None = None) -> QuestionAnswer:
    """The leading cause's own verdict on the question when it has one (a double-bit ECC error: not before the
    remap test; a fault that came back on the same card: its recurring verdict), its own steps then being the
    procedure; else the question's general verdict and procedure."""
    if question.decided_by == "suspect" and (judged := _suspect_answer(question, findings, hint)) is not None:
        return judged
    lead = rules.rule(findings[0].rule_id) if findings else None
    own = lead.asked_verdict(question.id, setup) if lead else None
    if own is not None:
        return QuestionAnswer(id=question.id, verdict=own, from_cause=True)
    value = lead.disposition(question.decided_by, setup) if lead and question.decided_by not in (None, "suspect") else None
    if value is not None:
        likely = f"likely_{value}" if findings[0].symptom is not None and f"likely_{value}" in question.verdicts else None
        template = question.verdicts.get(likely or value)
        if template is not None:  # the leading cause's own disposition, with its reason; its checks follow
            values = {"title": lead.title, "cause": lead.causes[0]}
            verdict = Text(**{lang: getattr(template, lang).format(**{k: getattr(v, lang) for k, v in values.items()}) for lang in ("en", "zh")})
            return QuestionAnswer(id=question.id, verdict=verdict)
    return QuestionAnswer(
        id=question.id, verdict=question.verdict, procedure_title=question.procedure_title, procedure=question.procedure
    )


def _analysed_text(text: str) -> tuple[str, int, int]:
    """(the last MAX_INPUT_BYTES of text starting at a line boundary, input size in bytes, lines dropped)."""
    if not text or not text.strip():
        raise AdvisorError(
            "empty_input",
            **TEXT.text("errors.empty_input").model_dump(),
            suggestions=TEXT.entry("empty_input_suggestions"),
        )
    encoded = text.encode("utf-8", "replace") if len(text) * 4 > MAX_INPUT_BYTES else None
    input_bytes = len(encoded) if encoded is not None else len(text.encode("utf-8", "replace"))
    kept = text
    if encoded is not None and len(encoded) > MAX_INPUT_BYTES:
        tail = encoded[-MAX_INPUT_BYTES:].decode("utf-8", "ignore")  # may drop half a character at the cut
        kept = text[len(text) - len(tail) :]
        newline = kept.find("\n", 0, 4096)
        if newline >= 0:  # start on a whole line so line numbers and excerpts stay meaningful
            kept = kept[newline + 1 :]
    sample = kept[:65536]
    if "\x00" in sample or len(_CONTROL.findall(sample)) > 0.1 * len(sample):
        raise AdvisorError(
            "binary_input",
            **TEXT.text("errors.binary_input").model_dump(),
        )
    if not kept.strip():
        raise AdvisorError(
            "empty_input",
            **TEXT.text("errors.blank_tail").model_dump(),
        )
    dropped_lines = text.count("\n", 0, len(text) - len(kept))
    return kept, input_bytes, dropped_lines


RecordIndex = dict[tuple[str, Value] | None, list[ParsedRecord]]


def _index(records: list[ParsedRecord]) -> RecordIndex:
    """Records by every (field, value) they carry, plus all of them under None, so that each of the
    hundred-odd Xid rules looks at its own code's lines instead of scanning every record."""
    index: RecordIndex = {None: records}
    for record in records:
        index.setdefault(("kind", record.kind), []).append(record)
        for item in record.values.items():
            index.setdefault(item, []).append(record)
    return index


def _evaluate(
    matcher: RuleMatcher, text: str, lowered: str, lines: list[str], records: dict[str, RecordIndex],
    setup: dict[str, Value], asked: frozenset[str] = frozenset(),
) -> Finding | None:
    evidence: list[Evidence] = []
    parsed: dict[str, Value] = {}
    matched: list[tuple[str, dict[str, Value]]] = []
    if matcher.parser:
        for record in records[matcher.parser].get(matcher.lookup, []):
            if all(condition.holds(record.kind, record.values) for condition in matcher.conditions):
                if not parsed:
                    parsed = dict(record.values)
                    matched = [(record.kind, record.values)]
                evidence.append(_record_evidence(matcher, record, lines))
                if len(evidence) >= MAX_EVIDENCE:
                    break
    for regex in matcher.regexes:
        match = regex.search(text)  # one hit per regex is enough evidence; the first hit is the earliest
        if match:
            values = {k: _typed(v) for k, v in match.groupdict().items() if v is not None}
            line = text.count("\n", 0, match.start()) + 1
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1)
            evidence.append(Evidence(line=line, excerpt=_log_part(_after_prose(lines[line - 1], column)), via="pattern", values=values))
            for key, value in values.items():
                parsed.setdefault(key, value)
    strong = bool(evidence)
    ascii_text = lowered.isascii()
    for keyword in matcher.keywords:
        if ascii_text and not keyword.isascii():
            continue  # a Chinese keyword cannot occur in an all-ASCII log; skip the scan
        position = _find_keyword(lowered, keyword)
        if position >= 0:
            line = lowered.count("\n", 0, position) + 1
            evidence.append(Evidence(
                line=line, excerpt=_excerpt(lines, line), via="keyword", values={"keyword": keyword}, source="description"
            ))  # fmt: skip
            if len(evidence) >= MAX_EVIDENCE + 2:
                break
    if not evidence:
        return None
    strong = strong and not all(item.source == "description" for item in evidence)
    # The figures the cause's own parser read: on the record that matched, else on any record of that parser (a word
    # raised the cause, the log's reading of the same field decides it).
    reading = matcher.rule.reading(matched) if matched else _reading(matcher.rule, records)
    return _finding(matcher.rule, matcher.rule.weight, strong, evidence, parsed, setup, asked=asked, reading=reading)


def _reading(rule: Rule, records: dict[str, RecordIndex]) -> FigureReading | None:
    """What the figures of the rule's parser, on any record the text holds, say of a cause raised otherwise (by a word,
    by a symptom): the log's own reading of the same field decides it ("HW Thermal Slowdown: Not Active")."""
    if not rule.figures or rule.parser is None:
        return None
    return rule.reading([(record.kind, record.values) for record in records.get(rule.parser, {}).get(None, [])])


def _finding(
    rule: Rule, base: float, strong: bool, evidence: list[Evidence], parsed: dict[str, Value], setup: dict[str, Value],
    symptom: str | None = None, asked: frozenset[str] = frozenset(), reading: FigureReading | None = None,
) -> Finding:
    """The rule's finding, its weight raised or lowered by what the stated setup says and then set by what the
    evidence's own figures say (``reading``), without the steps the setup makes wrong or an asked question's verdict
    already covers."""
    weight, because = rule.weight_given(base, setup)
    if reading is not None and reading.weight is not None and (symptom is None or reading.weight < weight):
        weight, because = reading.weight, []  # a cause guessed from a symptom is only ever lowered by them
    # A fault named in words (an Xid code, "double-bit ECC error") identifies itself as a log line would, by the rule's
    # named_strength; a cause guessed from a symptom (``symptom`` set) stays at a symptom word's strength.
    named = rule.named_strength if symptom is None and rule.named_strength else KEYWORD_STRENGTH
    return Finding(
        rule_id=rule.id, family=rule.family, title=rule.title,
        score=round(weight * (1.0 if strong else named), 3),
        evidence=evidence, parsed=parsed, causes=rule.causes, docs=rule.docs, meta=rule.meta,
        actions=[action for action in rule.actions if action.applies(setup, asked)],
        symptom=symptom, stated={field: setup[field] for field in because if field in setup}, new_finding=rule.new_finding,
        verdict=reading.verdict if reading is not None and reading.verdict is not None else rule.verdict_for(setup),
        assumption=reading.assumption if reading is not None else None,
    )  # fmt: skip


def _stated_in_text(index: RecordIndex) -> dict[str, Value]:
    """Setup facts the symptom parser read from the text itself ("num_workers=2", "single node"), and the
    temperatures given: the hottest, and how far it stands above the coolest when several are given."""
    stated: dict[str, Value] = {}
    for record in index.get(("kind", "setting"), []):
        for field, value in record.values.items():
            stated.setdefault(field, value)
    temperatures = [
        value for record in index.get(("kind", "temperature"), [])
        if isinstance(value := record.values.get("temperature_c"), float)
    ]  # fmt: skip
    if temperatures:
        stated["temperature_c"] = max(temperatures)
    if len(temperatures) >= 2:
        stated["temperature_spread_c"] = max(temperatures) - min(temperatures)
    return stated


def _stated_lines(index: RecordIndex, dropped_lines: int) -> dict[str, int]:
    """Each setup field the symptom parser read, at the first line that stated it."""
    lines: dict[str, int] = {}
    for record in index.get(("kind", "setting"), []):
        for field in record.values:
            lines.setdefault(field, record.line + dropped_lines)
    return lines


def _measured(index: RecordIndex) -> dict[str, Value]:
    """The first measured figure of each kind the text states ("busbw only 8 GB/s")."""
    measured: dict[str, Value] = {}
    for record in index.get(("kind", "bandwidth"), []):
        for field, value in record.values.items():
            measured.setdefault(field, value)
    return measured


def _causes_for_symptoms(
    findings: list[Finding], rules: RuleBook, setup: dict[str, Value], asked: frozenset[str] = frozenset(),
    records: dict[str, RecordIndex] | None = None,
) -> list[Finding]:
    """A symptom known only from a description ("utilisation is 30-40%") is replaced by the causes that explain it,
    each ranked by its likelihood given the stated setup. A symptom read from a log keeps its own finding: the log
    names what happened, and a cause it does not show is a guess."""
    by_rule = {finding.rule_id: finding for finding in findings}
    described = {rules.rule(finding.rule_id).symptom for finding in findings if finding.described}
    absorbed = {symptom for rule in rules.rules if rule.symptom in described for symptom in rule.absorbs}
    for finding in list(findings):
        symptom = rules.rule(finding.rule_id).symptom
        if symptom is None or not finding.described:
            continue
        if symptom in absorbed:  # part of another described symptom (a hang's 100% util): not a problem of its own
            by_rule.pop(finding.rule_id, None)
            continue
        causes = rules.causes_of(symptom)
        if not causes:
            continue
        if finding.rule_id not in {rule.id for rule in causes}:
            del by_rule[finding.rule_id]
        for rule in causes:
            candidate = _finding(
                rule, rule.explains[symptom], False, finding.evidence, finding.parsed, setup, symptom, asked, _reading(rule, records or {})
            )  # fmt: skip
            known = by_rule.get(rule.id)
            if known is None:
                by_rule[rule.id] = candidate
            elif known.described:  # named in the description too: one finding with both, at the likelier score
                # (the symptom's own rule, as one cause among others, weighs what the symptom alone says of it)
                score = candidate.score if rule.id == finding.rule_id else max(candidate.score, known.score)
                by_rule[rule.id] = candidate.model_copy(update={
                    "score": score, "evidence": known.evidence + candidate.evidence,
                    "parsed": {**candidate.parsed, **known.parsed}, "stated": {**candidate.stated, **known.stated},
                })  # fmt: skip
    return list(by_rule.values())


def _record_evidence(matcher: RuleMatcher, record: ParsedRecord, lines: list[str]) -> Evidence:
    """Point at the line of the field the rule tested (e.g. 'HW Thermal Slowdown : Active'), not just the block."""
    line = next(
        (record.field_lines[f] for c in matcher.conditions for f in c.fields() if f in record.field_lines), record.line
    )
    described = _described(record)
    excerpt = record.excerpt if line == record.line else _excerpt(lines, line)
    excerpt = _log_part(excerpt if described else _longest_ascii_run(excerpt))  # the user's own sentence is never quoted
    return Evidence(line=line, excerpt=excerpt, via="parser", values=record.values, source="description" if described else "log")


def _described(record: ParsedRecord) -> bool:
    """The record is the user's sentence: a figure typed in prose, or an OOM named without any of PyTorch's numbers
    ("keeps running out of memory on a 24GB card")."""
    if (record.parser, record.kind) in DESCRIBED_KINDS:
        return True
    return record.kind == "device_oom" and record.values.get("format") == "other" and not any(
        isinstance(value, float) for value in record.values.values()
    )


def pasted_output(text: str) -> bool:
    """The text holds a line of tool output (a log, an error, an nvidia-smi reading) that a parser reads, not only the
    user's description of the failure: more evidence for a diagnosis however the sentence around it reads."""
    return any(not _described(record) for spec in PARSERS.values() for record in spec.function(text[-MAX_INPUT_BYTES:]))


# Marks that end a sentence; "." and "!" only before a space, so "0000:3b:00" or "12.5" do not end one.
_SENTENCE_ENDS = "。！；?？"
_SPACED_ENDS = ".!;"


def _log_part(excerpt: str) -> str:
    """The quoted line without the question the user typed after the log on the same line ("…fallen off the bus.
    Should I RMA it?"): evidence quotes the log, never the user's own question back."""
    if not excerpt.endswith(("?", "？")):
        return excerpt
    for index in range(len(excerpt) - 2, 0, -1):
        character = excerpt[index]
        if character in _SENTENCE_ENDS or (character in _SPACED_ENDS and excerpt[index + 1] == " "):
            return excerpt[: index + 1].rstrip()
    return excerpt  # the whole line is the question: nothing else to quote


def _after_prose(line: str, column: int) -> str:
    """The line from where the user's own sentence before the log ends (a Chinese question, then "Failed to initialize
    NVML …", quotes "Failed to initialize NVML …"); the whole line when what stands before the match is not prose."""
    prefix = line[:column]
    if prose(prefix):
        cut = max((index for index, character in enumerate(prefix) if character >= "\u2e80" or character in "!?"), default=-1)
        cut = max(cut, prefix.rfind(". "))
        line = line[cut + 1 :]
    return line.strip()[:EXCERPT_CHARS]


def _longest_ascii_run(line: str) -> str:
    """A log line pasted inside a Chinese sentence (Chinese words, then "Failed to initialize NVML: …", then a Chinese
    question): the longest stretch without Chinese is the log; a line without Chinese is kept whole."""
    runs, current = [], []
    for character in line:
        if character >= "\u2e80":
            runs.append("".join(current))
            current = []
        else:
            current.append(character)
    if not runs:
        return line
    return max([*runs, "".join(current)], key=len).strip()


def _excerpt(lines: list[str], line: int) -> str:
    return lines[line - 1].strip()[:EXCERPT_CHARS] if 0 < line <= len(lines) else ""


def _typed(raw: str) -> Value:
    try:
        value = float(raw)
    except ValueError:
        return raw
    return value if math.isfinite(value) else raw  # a 400-digit run is text, not a number


def _find_keyword(lowered: str, keyword: str) -> int:
    """First position of ``keyword``; ASCII keywords stand as whole words ('oom' is not in 'room'), and the words of
    a phrase may have one word between them ("nccl timeout" is in "NCCL watchdog timeout")."""
    if not keyword.isascii():
        return lowered.find(keyword)
    if isinstance(lowered, _Lowered) and not lowered.holds_words_of(keyword):
        return -1  # whole words only: a word the text never holds as a word cannot start a match
    position = _find_whole_words(lowered, keyword)
    if position >= 0 or " " not in keyword or not all(_contains(lowered, word) for word in keyword.split()):
        return position  # the cheap tests first: a 200 KB log rarely holds every word of a phrase
    for match in _keyword_pattern(keyword).finditer(lowered):
        if not _word_character(lowered[match.start() - 1] if match.start() else " "):
            return match.start()
    return -1


class _Lowered(str):
    """The lower-cased text of one diagnosis, remembering which words it holds: rules share words ("nccl",
    "timeout"), and on a 200 KB log each absent word would otherwise cost a full scan per phrase."""

    __slots__ = ("present", "_words")

    def __new__(cls, text: str) -> _Lowered:
        lowered = super().__new__(cls, text)
        lowered.present = {}
        lowered._words = None
        return lowered

    def holds_words_of(self, keyword: str) -> bool:
        """Every ASCII word of ``keyword`` stands somewhere in the text as a whole word: one pass over the text
        builds the set, after which an absent cue costs a lookup instead of a scan of the whole log."""
        if self._words is None:
            self._words = frozenset(ASCII_WORD.findall(self))
        return all(word in self._words for word in ASCII_WORD.findall(keyword))


def _contains(lowered: str, word: str) -> bool:
    present = getattr(lowered, "present", None)
    if present is None:
        return word in lowered
    if word not in present:
        present[word] = word in lowered
    return present[word]


def _find_whole_words(lowered: str, keyword: str) -> int:
    start = 0
    while (position := lowered.find(keyword, start)) >= 0:
        end = position + len(keyword)
        before = lowered[position - 1] if position else " "
        after = lowered[end] if end < len(lowered) else " "
        if not _word_character(before) and not _word_character(after):
            return position
        start = position + 1
    return -1


def _word_character(character: str) -> bool:
    return character.isascii() and (character.isalnum() or character == "_")


ASCII_WORD = re.compile(r"[a-z0-9_]+")  # a run of the characters _word_character counts as a word's


@lru_cache(maxsize=1024)
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    """The phrase's words with at most one word between them; it starts with a literal, so the scan is fast."""
    between = r"(?:[^a-z0-9_\n]+[a-z0-9_]+)?[^a-z0-9_\n]+"
    return re.compile(between.join(re.escape(word) for word in keyword.split()) + r"(?![a-z0-9_])")


def _memory_hint(records: list[ParsedRecord], model: str | None) -> MemoryHint | None:
    device = [r for r in records if r.kind == "device_oom"]
    if not device:
        return None
    values = next((r.values for r in reversed(device) if "requested_mib" in r.values), device[-1].values)

    def gib(key: str) -> float | None:
        value = values.get(key)
        return round(value / MIB_PER_GIB, 3) if isinstance(value, float) else None

    capacity = gib("total_mib")
    gpu = values.get("gpu_index")
    return MemoryHint(
        gpu_index=int(gpu) if isinstance(gpu, float) else None, format=str(values.get("format", "other")),
        requested_gib=gib("requested_mib"), capacity_gib=capacity,
        capacity_gb=round(capacity * GB_PER_GIB, 2) if capacity is not None else None,
        free_gib=gib("free_mib"), allocated_gib=gib("allocated_mib"),
        reserved_unallocated_gib=gib("reserved_unallocated_mib"), this_process_gib=gib("this_process_mib"),
        other_processes_gib=gib("other_processes_mib"), model=model,
    )  # fmt: skip


def _one_server_note(gpus: Value) -> Text:
    return TEXT.text("notes.one_server", gpus=gpus)


def _notes(truncated: bool, input_bytes: int, dropped_lines: int, matched: bool) -> list[Text]:
    notes = []
    if truncated:
        kb = MAX_INPUT_BYTES // 1024
        notes.append(TEXT.text("notes.truncated", size=input_bytes / 1024, kb=kb, dropped=dropped_lines))
    if not matched:
        notes.append(TEXT.text("notes.nothing_matched"))
    return notes
