"""One question being answered offline: what was understood, and the tool calls made for it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from advisor.contract import Language, Source
from advisor.labels import pick, unit
from advisor.markdown import number
from advisor.nlu.ask import Ask
from advisor.nlu.entity_words import is_other_model
from advisor.nlu.frame import Frame
from advisor.nlu.reading import Reading
from advisor.nlu.slot_schema import LABELS, slot_label
from advisor.nlu.workload import MODEL_SLOTS
from advisor.offline.slots import TURN_TEXT, Slots
from advisor.registry import Registry, ToolOutcome
from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from tools.serving.setup import ENGINE_LABELS

FIELD_NAME = re.compile(r"[a-z]+(?:_[a-z0-9]+)+")  # 'server_price', 'utilisation_pct'
SETTING = re.compile(r"(?P<field>[a-z_]+)=(?P<value>\S+)")  # a tool's suggestion for programs: 'engine=llamacpp', 'tp=2'
FIELD_SLOT = {"num_gpus": "gpu_count"}  # tool fields whose slot has another name
COUNTS = ("gpu_count", "gpus_per_server", "server_count")


@dataclass
class Turn:
    message: str
    reading: Reading
    registry: Registry
    catalog: Catalog
    calls: list[ToolOutcome] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    ignored: dict[str, str] = field(default_factory=dict)  # slot → why the answer could not use it
    earlier: list[str] = field(default_factory=list)  # the user's earlier messages, oldest first
    ask: Ask = field(init=False)  # what was asked, as understood: the only place answers read it from
    slots: Slots = field(init=False)  # the conversation's frame for this task
    count_asked: bool = field(init=False)  # "how many would it take": how many cards is the question, not a given
    entities: Slots = field(init=False)  # what this message alone states
    compared_itself: bool = False  # the answer sets its figure beside the thread's earlier one itself: no "with … instead of …" lead
    formats_said: dict = field(default_factory=dict)  # a serving-format line's (key, format, page) → the cards it names
    verdict_leads: bool = False  # the answer's first paragraph is its verdict on the changed value: the "with … instead of …" lead follows it
    judged: set[str] = field(default_factory=set)  # stated figures already given a verdict above ("mfu_percent"): not judged twice

    def __post_init__(self) -> None:
        # "then how many if all 910B?" after "does it fit on 8 H20s?" asks how many 910B it takes, not whether eight of them hold it:
        # the count asked for is dropped from the conversation's frame
        self.ask = Ask.read(self.reading, self.catalog, self.earlier)
        self.count_asked = self.ask.asks_count and not any(self.reading.frame.has(slot) for slot in COUNTS)
        state = self.reading.state
        self.slots = Slots(Frame({slot: values for slot, values in state.slots.items() if slot not in COUNTS}) if self.count_asked else state)
        self.entities = Slots(self.reading.frame)
        self.slots.said = "\n".join([*self.earlier, self.message])  # where "500 people online at peak" can be read as online users
        self.slots.requests_said = self.ask.requests_no_period  # "10,000 requests": a month's traffic when nothing else states the load
        self.slots.tokens_said = self.ask.tokens_per_day  # "5M tokens a day": requests of the default size, when nothing else states the load
        self.slots.fresh = self.reading.frame  # "what if it were 20k daily actives?": a load this message states replaces an earlier one of another kind

    @property
    def language(self) -> Language:
        return self.reading.language  # type: ignore[return-value]

    @property
    def china_buyer(self) -> bool:
        """A mainland buyer: the region said so, or a Chinese question that named no other region (a Chinese-speaking
        team in Singapore buys and rents in the global market)."""
        region = self.slots.region
        return region == "cn" or (region is None and self.language == "zh")

    @property
    def china_matters(self) -> bool:
        """China's buying rules bear on this answer: a mainland buyer, or a question about export rules or compliance.
        Otherwise a card's China status (barred, licence, China edition) is clutter the user did not ask for."""
        return self.china_buyer or "export" in self.ask.named.get("topic", ()) or self.reading.facet.name == "compliance"

    @property
    def currency(self) -> str:
        """The currency of figures no amount fixed: the buyer's market's (yuan for a mainland buyer, dollars for any
        other region), else the language's."""
        return "CNY" if self.china_buyer else "USD"

    @property
    def intent(self) -> str:
        return self.reading.task or self.reading.intent

    def model_reference(self) -> str | None:
        """What the conversation names as the model: a catalog id, else a bare size such as '7B' (``Ask.workload``,
        resolved once per turn); how it was read, when not as written, is said as an assumption of this answer, and a
        model named beside the question ("we used to run Llama 2 13B, now ...") is said to be left out, once."""
        self.slots.mark(*MODEL_SLOTS)
        for note in self.ask.workload.model_notes:
            self.assume(*TURN_TEXT.both(note.key, **note.values))
        model = self.ask.workload.model
        if self.ask.aside_models and model is not None:
            found = self.catalog.find_model(model)
            aside = TURN_TEXT.pick("list_joiner", self.language).join(self.ask.aside_models)
            said = TURN_TEXT.pick("aside_model_left_out", self.language, model=found.name if found else model, aside=aside)
            if said not in self.assumptions:
                self.assumptions.append(said)
        return model

    @staticmethod
    def is_language_model(name: str) -> bool:
        """Whether a model the reader found is a language model the calculators size (not "bge-m3", "whisper")."""
        return not is_other_model(name)

    def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        outcome = self.registry.call(name, {k: v for k, v in args.items() if v is not None})
        self.calls.append(outcome)
        return outcome

    def t(self, en: str, zh: str) -> str:
        return pick(self.language, en, zh)

    def text(self, value: Text | dict) -> str:
        value = value if isinstance(value, Text) else Text.model_validate(value)
        return value.pick(self.language)

    def formula(self, item: dict) -> str:
        """A tool line item's formula in the user's language."""
        return item.get("formula_zh") or item["formula"] if self.language == "zh" else item["formula"]

    def item_rows(self, items: list[dict]) -> list[list[str]]:
        """Tool line items as table rows (item, value with its unit, formula) in the user's language."""
        return [[self.text(i["label"]), f"{number(i['value'], 2)} {unit(i['unit'], self.language)}".rstrip(), f"`{self.formula(i)}`"] for i in items]

    def assume(self, en: str, zh: str) -> None:
        self.assumptions.append(self.t(en, zh))

    def ignore(self, slot: str, en: str, zh: str) -> None:
        """The user stated ``slot`` but this answer cannot use it: say so rather than drop it (even if it was read)."""
        self.ignored[slot] = self.t(en, zh)
        self.slots.used.discard(slot)

    def error(self, outcome: ToolOutcome) -> str:
        """The tool's bilingual error, its suggestions in words (settings syntax and bare field names are for programs)."""
        error = dict(outcome.error or {})
        error["suggestions"] = [words for s in error.get("suggestions", []) if (words := self._in_words(str(s)))]
        text = f"⚠️ {AdvisorError(**error).message(self.language)}"
        if error.get("code") == "unknown_model":
            text += "\n\n" + self._unknown_model_help()
        return text

    def _in_words(self, suggestion: str) -> str | None:
        """"engine=llamacpp" as "engine llama.cpp" / its Chinese wording; a bare field name or an unknown field says nothing."""
        setting = SETTING.fullmatch(suggestion)
        if setting is None:
            return None if FIELD_NAME.fullmatch(suggestion) else suggestion
        slot = FIELD_SLOT.get(setting["field"], setting["field"])
        if slot not in LABELS:
            return None
        value = ENGINE_LABELS.get(setting["value"], setting["value"]) if slot == "engine" else setting["value"]
        return f"{slot_label(slot, self.language)} {value}"

    def _unknown_model_help(self) -> str:
        name = self.slots.models[0] if self.slots.models else ""
        if name and is_other_model(name):
            return TURN_TEXT.pick("not_a_language_model", self.language, name=name)
        return TURN_TEXT.pick("name_a_model", self.language)

    def cite(self, doc_id: str, title: str, section: str = "", urls: list[str] | None = None, citation: str = "") -> None:
        self.cite_source(Source(doc_id=doc_id, title=title, section=section, urls=urls or [], citation=citation))

    def cite_gpu(self, gpu: dict) -> None:
        """A catalog row as a source: its availability note, its citation, and the dated pages its figures come from."""
        note = self.t(gpu["availability_en"], gpu["availability_zh"]) if self.china_matters else ""  # the note is the China status
        urls = [page["url"] for page in gpu.get("spec_sources") or []]
        title = gpu["name"]
        if gpu.get("source_quality") == "secondary":  # no vendor page gives the figures: the reader is told so
            title = TURN_TEXT.pick("secondary_source", self.language, name=title)
        self.cite(f"gpu:{gpu['id']}", title, note, urls=urls, citation=gpu["source"])

    def cite_source(self, source: Source) -> None:
        if all(s.doc_id != source.doc_id for s in self.sources):
            self.sources.append(source)
