"""Troubleshooting rules: schema, validation and compilation of ``knowledge/troubleshooting/<family>.yaml``.

Rules are data. Each one says how to recognise a problem (log regexes, symptom keywords in both
languages, or conditions on the records of a named parser from ``tools.troubleshoot.parsers``), how much
to trust it (``weight``), and what to tell the user (causes and actions, in English and Chinese).
Everything is validated and compiled once when the book is loaded; a bad file fails loudly with
the file and rule named.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError
from knowledge.troubleshooting import RULES_DIR, Family, read_fact_file, read_question_file, read_rule_files
from tools.troubleshoot.parsers import PARSERS, Value
from tools.troubleshoot.stated import SETUP_FIELDS

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}  # fmt: skip
_CONDITION = re.compile(
    r"^\s*(?P<field>\w+)\s*(?P<op>==|!=|>=|<=|>|<)\s*"
    r"(?:'(?P<text>[^']*)'"  # 'device_oom'
    r"|(?P<factor>-?\d+(?:\.\d+)?)\s*\*\s*(?P<ref>[a-z_]\w*)"  # 0.5 * requested_mib
    r"|(?P<number>-?\d+(?:\.\d+)?)"  # 79
    r"|(?P<ref_only>[a-z_]\w*))\s*$"  # requested_mib
)


def _folded_cues(kind: str, ident: str, cues) -> tuple[str, ...]:
    """A question's or a fact's cues in both languages, lower-cased and without repeats; an empty one is refused."""
    folded = [c.casefold().strip() for c in (*cues.en, *cues.zh)]
    if not folded or any(not c for c in folded):
        raise ValueError(f"{kind} {ident!r} needs non-empty cues")
    return tuple(dict.fromkeys(folded))


@dataclass(frozen=True)
class Condition:
    """``field op value`` on a parser record: ``xid == 79``, ``kind == 'device_oom'``,
    ``reserved_unallocated_mib >= 1.0 * requested_mib`` (right side may be another field times a factor)."""

    field: str
    op: str
    number: float | None = None
    text: str | None = None
    ref: str | None = None
    factor: float = 1.0

    @classmethod
    def parse(cls, source: str) -> Condition:
        match = _CONDITION.match(source)
        if not match:
            raise ValueError(f"condition {source!r} is not 'field OP number|'text'|[factor *] field'")
        ref = match.group("ref") or match.group("ref_only")
        number = match.group("number")
        return cls(
            field=match.group("field"), op=match.group("op"), text=match.group("text"), ref=ref,
            number=float(number) if number is not None else None,
            factor=float(match.group("factor")) if match.group("factor") else 1.0,
        )  # fmt: skip

    @property
    def equality(self) -> tuple[str, Value] | None:
        """(field, value) when this is ``field == literal``: lets the engine look records up instead of scanning."""
        if self.op != "==" or self.ref is not None:
            return None
        return (self.field, self.text if self.text is not None else self.number)  # type: ignore[return-value]

    def fields(self) -> list[str]:
        return [self.field] + ([self.ref] if self.ref else [])

    def holds(self, kind: str, values: dict[str, Value]) -> bool:
        """False when a field is missing or of the wrong type: absent evidence never fires a rule."""
        left = kind if self.field == "kind" else values.get(self.field)
        if self.text is not None:
            right: Any = self.text
        elif self.ref is not None:
            ref = values.get(self.ref)
            right = ref * self.factor if isinstance(ref, float) else None
        else:
            right = self.number
        if left is None or right is None or isinstance(left, str) != isinstance(right, str):
            return False
        return _OPERATORS[self.op](left, right)


class Keywords(BaseModel):
    """Words users type when describing the symptom. English ones must match whole words."""

    model_config = ConfigDict(extra="forbid")
    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)


class Patterns(BaseModel):
    model_config = ConfigDict(extra="forbid")
    log: list[str] = Field(
        default_factory=list, description="Regexes matched against the log; named groups become parsed values."
    )
    keywords: Keywords = Field(default_factory=Keywords)


Lever = Literal[
    "batch", "recompute", "precision", "sharding", "offload", "context", "workers", "reboot", "driver", "timeout", "ib_transport",
    "interface", "allocator",
]
# Where a fault lies, for "is this a hardware problem?" / "is it the driver?": the card or server itself, the driver or
# firmware, the job's code or framework, the job's settings or the site's network and cooling, or either of the first
# two (a fault that is a hardware case only when it comes back on the same GPU).
FaultIn = Literal["hardware", "driver", "software", "setup", "either"]
# Whether the GPU may keep taking work, for "can I keep training on this node?": yes, after restarting the job, or
# only after it is drained (reset, reboot, repair).
KeepRunning = Literal["yes", "restart", "drain"]
Symptom = Literal[
    "low_utilisation", "out_of_memory", "overheating", "slow_data_loading", "collective_hang", "slow_interconnect",
    "busy_but_slow", "slow_training",
]


class StatedContext(BaseModel):
    """Conditions on the stated setup that all hold: ``nodes > 1``, ``method == 'inference'``."""

    model_config = ConfigDict(extra="forbid")
    when: list[str] = Field(min_length=1, description="Conditions on the stated setup, e.g. 'nodes > 1', 'batch <= 4'.")

    _conditions: tuple[Condition, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _compile(self) -> StatedContext:
        conditions = tuple(Condition.parse(text) for text in self.when)
        unknown = sorted({f for c in conditions for f in c.fields()} - SETUP_FIELDS)
        if unknown:
            raise ValueError(f"likely_when names {unknown}, not stated-setup fields; they are {sorted(SETUP_FIELDS)}")
        self._conditions = conditions
        return self

    def holds(self, setup: dict[str, Value]) -> bool:
        return all(condition.holds("setup", setup) for condition in self._conditions)


class Likelihood(StatedContext):
    """A stated setup that makes a cause likelier: ``when`` all hold, the rule's weight is at least ``weight``
    (or, under ``unlikely_when``, at most ``weight``)."""

    weight: float = Field(gt=0, le=1)


class FigureReading(BaseModel):
    """What the figures of the rule's own parser record say of its cause ("reserved_unallocated_mib < 0.1 *
    allocated_mib": the cache is too small a share to be the problem; "hw_thermal_slowdown == 0": the log says this
    reason is not active; "sw_power_cap == 1" at the default limit: the normal state). When its conditions hold on a
    record of the rule's parser, the rule takes ``weight`` (the evidence's own figures outweigh a word or a prior) and,
    with a ``verdict``, that sentence is the answer's first ("this is expected: …; it becomes a problem only if …")."""

    model_config = ConfigDict(extra="forbid")
    when: list[str] = Field(min_length=1, description="Conditions (all must hold) on one record of the rule's parser.")
    weight: float | None = Field(None, gt=0, le=1, description="The rule's weight when they hold; unset: unchanged.")
    verdict: Text | None = Field(None, description="The first sentence when they hold, with its parser's fields as {placeholders}.")
    assumption: Text | None = Field(None, description="Set when a cut-off in `when` is no sourced figure: why it was chosen, "
                                    "said in the answer's details when the reading decides it.")

    _conditions: tuple[Condition, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _compile(self) -> FigureReading:
        if self.weight is None and self.verdict is None:
            raise ValueError("a figure reading needs a weight or a verdict: it would change nothing")
        self._conditions = tuple(Condition.parse(text) for text in self.when)
        return self

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return self._conditions

    def holds(self, kind: str, values: dict[str, Value]) -> bool:
        return all(condition.holds(kind, values) for condition in self._conditions)


class Action(BaseModel):
    """Something concrete to do, with the exact command, environment variable or config line when there is one."""

    model_config = ConfigDict(extra="forbid")
    en: str
    zh: str
    command: str | None = Field(None, description="Verbatim command/env/config, e.g. 'nvidia-smi -q -d PERFORMANCE'.")
    lever: Lever | None = Field(None, description="The setting this action changes; an action whose lever the user already pulled is not repeated.")
    skip_when: list[StatedContext] = Field(
        default_factory=list,
        description="Stated setups for which this step is the wrong advice (ZeRO-3 across GPUs for a LoRA job).",
    )

    only_when: list[StatedContext] = Field(
        default_factory=list, description="Stated setups this step is for (one of them must hold); empty: any setup."
    )
    stopgap_for: list[str] = Field(
        default_factory=list,
        description="Yes/no question ids whose verdict already covers this step (raising the timeout): when one of "
        "them was asked, the verdict says it and the step is not listed again.",
    )

    def applies(self, setup: dict[str, Value], asked: frozenset[str] = frozenset()) -> bool:
        """False for a step the stated setup makes wrong, or one a question's verdict already answers."""
        if self.only_when and not any(context.holds(setup) for context in self.only_when):
            return False
        return not any(context.holds(setup) for context in self.skip_when) and asked.isdisjoint(self.stopgap_for)


class YesNoQuestion(BaseModel):
    """A yes/no question users put inside a report ("should I just raise the timeout?"), answered first.

    ``verdict`` is the answer when the leading cause has none of its own (``Rule.asks``); ``procedure`` holds the
    steps that settle the question when the verdict is "test it" (move the card, see whether the fault follows it)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    cues: Keywords = Field(description="Phrases that ask this question, matched like rule keywords.")
    verdict: Text
    decided_by: Literal["fault_in", "keep_running", "suspect"] | None = Field(
        None, description="The leading cause's field that answers the question (is it hardware? may it keep running?); 'suspect': "
        "the cause the user suspects (``suspects``) judged by where the described symptoms rank it (verdict keys lead, listed, absent)."
    )
    suspects: list[str] = Field(
        default_factory=list, description="Rule families or rule ids the question suspects (\"could it be thermal?\": the thermal family)."
    )
    verdicts: dict[str, Text] = Field(
        default_factory=dict,
        description="That field's value -> the verdict, with {title} and {cause} of the leading cause; a key 'likely_<value>' "
        "is said instead when the cause is ranked from a description only. ``verdict`` when the cause has no such field.",
    )
    figures: list[str] = Field(
        default_factory=list, description="Figures of the failed step's message (MemoryHint fields, in GiB) the verdict quotes "
        "(\"is it fragmentation?\": reserved but unallocated against the allocation that failed): with all of them read, a verdict key "
        "'<key>_figures' is said instead of '<key>', so the answer is decided by the report's own numbers.",
    )
    procedure_title: Text | None = None
    procedure: list[Action] = Field(default_factory=list)
    source: str | None = None

    _cues: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _compile(self) -> YesNoQuestion:
        cues = _folded_cues("question", self.id, self.cues)
        if self.procedure and self.procedure_title is None:
            raise ValueError(f"question {self.id!r} has a procedure without a procedure_title")
        self._cues = cues
        return self

    @property
    def compiled_cues(self) -> tuple[str, ...]:
        return self._cues


class ThreadFact(BaseModel):
    """A fact a user states in words, often in a later message of a thread ("it's always node 3"): the setup fields
    it states (the rules' likely_when / unlikely_when read them, so the causes are re-ranked), the levers it says
    were already pulled, and what it means, said first when it is what the newest message brings."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    cues: Keywords = Field(description="Phrases that state the fact, matched like rule keywords.")
    sets: dict[str, bool | float | str] = Field(default_factory=dict, description="Stated-setup fields the fact states.")
    pulls: list[Lever] = Field(default_factory=list, description="Levers the fact says were already pulled.")
    meaning: Text

    _cues: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _compile(self) -> ThreadFact:
        unknown = sorted(set(self.sets) - SETUP_FIELDS)
        if unknown:
            raise ValueError(f"fact {self.id!r} sets {unknown}, not stated-setup fields; they are {sorted(SETUP_FIELDS)}")
        if not self.sets and not self.pulls:
            raise ValueError(f"fact {self.id!r} neither sets a setup field nor pulls a lever: it could change nothing")
        self._cues = _folded_cues("fact", self.id, self.cues)
        return self

    @property
    def compiled_cues(self) -> tuple[str, ...]:
        return self._cues

    def setup_values(self) -> dict[str, Value]:
        """The fields it sets as rule conditions compare them (true as 1.0, like StatedSetup.values)."""
        return {name: float(value) if isinstance(value, bool | int | float) else value for name, value in self.sets.items()}


class Rule(BaseModel):
    """One diagnosable problem."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    family: Family
    title: Text
    weight: float = Field(gt=0, le=1, description="Prior confidence when the rule's log evidence is present.")
    patterns: Patterns = Field(default_factory=Patterns)
    parser: str | None = Field(None, description="Name of a parser in tools.troubleshoot.parsers.PARSERS.")
    when: list[str] = Field(default_factory=list, description="Conditions (all must hold) on one parser record.")
    causes: list[Text] = Field(min_length=1)
    actions: list[Action] = Field(min_length=1)
    docs: list[str] = Field(default_factory=list, description="Related knowledge doc ids, e.g. 'oom'.")
    symptom: Symptom | None = Field(
        None, description="The symptom this rule recognises in a description; its causes are ranked in its place."
    )
    explains: dict[Symptom, float] = Field(
        default_factory=dict,
        description="Symptom → how likely this cause is when only the symptom is known (0–1), before the setup is read.",
    )
    likely_when: list[Likelihood] = Field(
        default_factory=list, description="Stated setups that raise this cause's weight (a multi-node job: the network)."
    )
    unlikely_when: list[Likelihood] = Field(
        default_factory=list,
        description="Stated setups that make this cause less likely: its weight is at most the given one "
        "(one NVLink node: the network between nodes).",
    )
    ruled_out_when: list[StatedContext] = Field(
        default_factory=list,
        description="Stated setups in which this cause cannot apply (a serving engine's OOM is not a training step's).",
    )
    meaning: Text | None = Field(
        None, description="For a symptom rule: what the symptom's figure measures, said once when the symptom is described."
    )
    not_with: Keywords = Field(
        default_factory=Keywords,
        description="Phrases that, anywhere in the text, mean this cause does not apply (a hang that printed a "
        "watchdog timeout is not a silent one); matched like keywords.",
    )
    absorbs: list[Symptom] = Field(
        default_factory=list,
        description="For a symptom rule: symptoms that, described beside its symptom (by this rule or another of the "
        "same symptom), are part of it and not a problem of their own (a hang's 100% GPU-Util is NCCL kernels spinning, "
        "not a slow link): their causes are not ranked.",
    )
    verdict: Text | None = Field(
        None,
        description="For a rule that judges a figure the user stated (25% MFU), a field its log shows (SeqNum=1) or a "
        "fault's disposition (replace, reset and watch): the first sentence of the answer, with stated-setup fields and "
        "its parser's fields as {placeholders}; said instead of 'most likely cause'.",
    )
    recurring_verdict: Text | None = Field(
        None,
        description="The disposition when the stated setup says the fault came back on the same card or node (recurring: "
        "'again, third time this month'): said instead of ``verdict`` and of the ``asks`` verdicts, since a repeat is past first-time triage.",
    )
    new_finding: Text | None = Field(
        None,
        description="What it means when this cause's log evidence arrives in a later message of a thread "
        "(NET/Socket: NCCL fell back to TCP), said first so a follow-up is not answered with the first answer again.",
    )
    asks: dict[str, Text] = Field(
        default_factory=dict, description="Yes/no question id → the verdict when this cause leads (overrides the question's own)."
    )
    meta: dict[str, str] = Field(default_factory=dict, description="Source facts, e.g. NVIDIA's Xid resolution buckets.")
    source: str | None = None
    named_strength: float | None = Field(
        None, gt=0, le=1,
        description="How surely the fault is identified when the user names it in words (an Xid code, 'double-bit ECC "
        "error') instead of pasting the log line: 1.0 for a code or message that names one fault; unset, a symptom "
        "word's strength (KEYWORD_STRENGTH). The named fault then outranks the causes guessed from a symptom.",
    )
    figures: list[FigureReading] = Field(
        default_factory=list,
        description="What the figures its parser reads say of this cause, first holding reading first: a weight and "
        "possibly the first sentence. Read on the record that matched, or, for a cause raised by a word, on any record "
        "of its parser (the log's own reading outweighs the word: 'HW Thermal Slowdown: Not Active').",
    )
    fault_in: FaultIn | None = Field(
        None, description="Where the fault lies when this cause leads: answers 'is this a hardware / driver problem?'."
    )
    keep_running: KeepRunning | None = Field(
        None, description="Whether the GPU may keep taking work when this cause leads: answers 'can I keep training on it?'."
    )

    def disposition(self, field: str, setup: dict) -> str | None:
        """The rule's fault_in or keep_running given the stated setup: a fault that came back on the same card is a
        hardware case that takes the card out of service, whatever its first occurrence would have been."""
        value = getattr(self, field)
        if setup.get("recurring") and self.fault_in in ("hardware", "either"):
            return {"fault_in": "hardware", "keep_running": "drain"}[field]
        return value

    def verdict_for(self, setup: dict) -> Text | None:
        """The verdict given the stated setup: the recurring one for a fault said to have come back, else the rule's own."""
        return self.recurring_verdict if self._repeat(setup) else self.verdict

    def _repeat(self, setup: dict) -> bool:
        """The fault came back and the rule has a repeat's disposition; a family's default one (rule-file defaults) is
        for faults of the card only: a software fault that recurs is not an RMA."""
        return bool(setup.get("recurring")) and self.recurring_verdict is not None and self.fault_in in ("hardware", "either", None)

    def asked_verdict(self, question: str, setup: dict) -> Text | None:
        """The verdict on a yes/no question when this cause leads: a recurring fault's own disposition first."""
        if self._repeat(setup) and question in self.asks:
            return self.recurring_verdict
        return self.asks.get(question)

    _conditions: tuple[Condition, ...] = PrivateAttr(default=())
    _regexes: tuple[re.Pattern[str], ...] = PrivateAttr(default=())
    _keywords: tuple[str, ...] = PrivateAttr(default=())
    _exclusions: tuple[str, ...] = PrivateAttr(default=())
    _lookup: tuple[str, Value] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _compile(self) -> Rule:
        if self.parser is not None and self.parser not in PARSERS:
            raise ValueError(f"unknown parser {self.parser!r}; known: {sorted(PARSERS)}")
        if self.when and self.parser is None:
            raise ValueError("'when' conditions need a 'parser'")
        if any(not 0 < prior <= 1 for prior in self.explains.values()):
            raise ValueError("an 'explains' likelihood must lie in (0, 1]")
        if not (self.parser or self.patterns.log or self.patterns.keywords.en or self.patterns.keywords.zh or self.explains):
            raise ValueError("a rule needs a parser, log patterns or keywords to ever match")
        conditions = tuple(Condition.parse(text) for text in self.when)
        if self.verdict is not None:
            # A verdict may quote the stated setup or the fields its own parser reads from the log (SeqNum=1).
            known = SETUP_FIELDS | (PARSERS[self.parser].fields if self.parser in PARSERS else frozenset())
            named = {name for text in (self.verdict.en, self.verdict.zh) for name in re.findall(r"\{(\w+)\}", text)}
            if named - known:
                raise ValueError(f"verdict names {sorted(named - known)}, not stated-setup fields or fields of its parser")
        if self.figures and self.parser is None:
            raise ValueError("'figures' read the records of a 'parser'")
        for reading in self.figures:
            fields = {f for c in reading.conditions for f in c.fields()}
            named = set(re.findall(r"\{(\w+)\}", f"{reading.verdict.en} {reading.verdict.zh}")) if reading.verdict else set()
            known = PARSERS[self.parser].fields | {"kind"}
            unknown = sorted((fields - known) | (named - known - SETUP_FIELDS))
            if unknown:
                raise ValueError(f"figures name {unknown}, not fields of parser {self.parser!r}")
        if self.parser is not None:
            spec = PARSERS[self.parser]
            for condition in conditions:
                unknown = [f for f in condition.fields() if f != "kind" and f not in spec.fields]
                if unknown:
                    raise ValueError(f"parser {self.parser!r} has no field(s) {unknown}; it has {sorted(spec.fields)}")
                if condition.field == "kind" and condition.text not in spec.kinds:
                    raise ValueError(f"parser {self.parser!r} has no kind {condition.text!r}; it has {sorted(spec.kinds)}")
        regexes = []
        for pattern in self.patterns.log:
            try:
                regexes.append(re.compile(pattern))
            except re.error as exc:
                raise ValueError(f"log pattern {pattern!r} is not a valid regex: {exc}") from exc
        keywords = [k.casefold().strip() for k in (*self.patterns.keywords.en, *self.patterns.keywords.zh)]
        if any(not k for k in keywords):
            raise ValueError("empty keyword")
        self._conditions, self._regexes, self._keywords = conditions, tuple(regexes), tuple(dict.fromkeys(keywords))
        self._lookup = next((c.equality for c in conditions if c.equality), None)
        self._exclusions = tuple(dict.fromkeys(k.casefold().strip() for k in (*self.not_with.en, *self.not_with.zh)))
        return self

    @property
    def exclusions(self) -> tuple[str, ...]:
        """Case-folded ``not_with`` phrases of both languages."""
        return self._exclusions

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return self._conditions

    @property
    def lookup(self) -> tuple[str, Value] | None:
        """A ``field == value`` condition every matching record must satisfy (e.g. ``('xid', 79.0)``), if any."""
        return self._lookup

    @property
    def regexes(self) -> tuple[re.Pattern[str], ...]:
        return self._regexes

    @property
    def keywords(self) -> tuple[str, ...]:
        """Case-folded keywords of both languages, matched against the case-folded input."""
        return self._keywords

    def weight_given(self, base: float, setup: dict[str, Value]) -> tuple[float, list[str]]:
        """``base`` raised by every ``likely_when`` the stated setup satisfies and then capped by every
        ``unlikely_when`` it satisfies (stated evidence against a cause outweighs evidence for it), with the setup
        fields that raised it."""
        weight, because = base, []
        for likelihood in self.likely_when:
            if likelihood.holds(setup) and likelihood.weight > weight:
                weight = likelihood.weight
                because = [f for c in likelihood._conditions for f in c.fields()]
        for unlikely in self.unlikely_when:
            if unlikely.holds(setup) and unlikely.weight < weight:
                weight, because = unlikely.weight, []
        return weight, because

    def reading(self, records: list[tuple[str, dict[str, Value]]]) -> FigureReading | None:
        """The first of ``figures`` that holds on one of ``records`` (kind, values), or None."""
        return next((reading for reading in self.figures for kind, values in records if reading.holds(kind, values)), None)

    def ruled_out(self, setup: dict[str, Value]) -> bool:
        """The stated setup excludes this cause whatever the evidence (one node: no NIC carries the collective)."""
        return any(context.holds(setup) for context in self.ruled_out_when)


@dataclass(frozen=True, slots=True)
class RuleMatcher:
    """A rule's compiled matching data as plain attributes, read in the engine's hot loop."""

    rule: Rule
    parser: str | None
    lookup: tuple[str, Value] | None
    conditions: tuple[Condition, ...]
    regexes: tuple[re.Pattern[str], ...]
    keywords: tuple[str, ...]


class RuleBook(BaseModel):
    """All troubleshooting rules, validated and compiled; pass it to ``tools.troubleshoot.diagnose.diagnose``."""

    rules: list[Rule]
    sources: dict[str, str] = Field(description="Family → where its facts come from.")
    questions: list[YesNoQuestion] = Field(default_factory=list, description="Yes/no questions a report may ask.")
    facts: list[ThreadFact] = Field(default_factory=list, description="Facts a thread may state in words (the same node, hours in).")
    _matchers: tuple[RuleMatcher, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _unique_ids(self) -> RuleBook:
        ids = [rule.id for rule in self.rules]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise ValueError(f"duplicate rule ids {duplicated}")
        known = {question.id for question in self.questions}
        named = {(rule.id, asked) for rule in self.rules for asked in rule.asks}
        named |= {(rule.id, asked) for rule in self.rules for action in rule.actions for asked in action.stopgap_for}
        unknown = sorted((rule_id, asked) for rule_id, asked in named if asked not in known)
        if unknown:
            raise ValueError(f"rules answer questions that are not in the question file: {unknown}")
        self._matchers = tuple(
            RuleMatcher(rule, rule.parser, rule.lookup, rule.conditions, rule.regexes, rule.keywords)
            for rule in self.rules
        )
        return self

    @property
    def matchers(self) -> tuple[RuleMatcher, ...]:
        return self._matchers

    def rule(self, rule_id: str) -> Rule:
        return next(rule for rule in self.rules if rule.id == rule_id)

    def causes_of(self, symptom: str) -> list[Rule]:
        """Rules that name ``symptom`` among the symptoms they explain."""
        return [rule for rule in self.rules if symptom in rule.explains]

    def parsers(self) -> list[str]:
        """Parsers some rule needs, in a fixed order, so each runs once per diagnosis."""
        return sorted({rule.parser for rule in self.rules if rule.parser})


def _validated(model: type[BaseModel], items: list, directory: Path, what: str) -> list:
    """Every entry of a rule-book file as ``model``; the first invalid one names the file's folder, its number and why."""
    validated = []
    for index, item in enumerate(items, start=1):
        try:
            validated.append(model.model_validate(item))
        except ValidationError as exc:
            raise CatalogError(f"{directory}: {what} {index} is invalid:\n{exc}") from exc
    return validated


def read_rulebook(directory: Path = RULES_DIR) -> RuleBook:
    """Read, validate and compile every ``<family>.yaml`` in ``directory``; ``CatalogError`` names file and rule."""
    rules: list[Rule] = []
    sources: dict[str, str] = {}
    for file in read_rule_files(directory):
        sources[file.family] = file.source
        for index, item in enumerate(file.rules, start=1):
            label = item.get("id", "?") if isinstance(item, dict) else "?"
            if isinstance(item, dict):
                item = {"family": file.family, **file.completed(item)}
            try:
                rules.append(Rule.model_validate(item))
            except ValidationError as exc:
                raise CatalogError(f"{file.path}: rule {index} ({label}) is invalid:\n{exc}") from exc
            if rules[-1].family != file.family:
                raise CatalogError(f"{file.path}: rule {index} ({label}) has family '{rules[-1].family}', not '{file.family}'")
    questions = _validated(YesNoQuestion, read_question_file(directory), directory, "yes/no question")
    facts = _validated(ThreadFact, read_fact_file(directory), directory, "thread fact")
    try:
        return RuleBook(rules=rules, sources=sources, questions=questions, facts=facts)
    except ValidationError as exc:
        raise CatalogError(f"{directory}: {exc}") from exc


@lru_cache(maxsize=1)
def load_rulebook() -> RuleBook:
    """The shipped rule book, parsed and compiled once per process."""
    return read_rulebook(RULES_DIR)
