"""One message as the understanding layer read it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from advisor.language import LanguageInfo, analyze_language, default_currency
from advisor.name_matcher import normalize_text
from advisor.nlu.cues import says
from advisor.nlu.facets import Facet, facet_of
from advisor.nlu.frame import Frame, SlotValue, build_frame
from advisor.nlu.model import TaggedValue, UnderstandingModel
from advisor.nlu.number_values import Value
from advisor.nlu.values import find_values
from advisor.nlu.workload import SIZE_IN_NAME
from knowledge.catalog import Catalog


@dataclass
class Reading:
    text: str
    language_info: LanguageInfo
    intent: str
    confidence: float
    probabilities: dict[str, float]  # the classifier's probability per intent, before any dialogue rule
    tagged: list[TaggedValue]
    frame: Frame  # what this message states
    task: str | None = None  # the calculation asked for: this message's task or, for a follow-up, the one it continues
    state: Frame = field(default_factory=Frame)  # the task's slots over the conversation
    task_messages: list[str] = field(default_factory=list)  # the user's messages that built ``state``, newest last
    before: Frame = field(default_factory=Frame)  # the task's slots before this message: what a follow-up changed is told against it
    facet: Facet = field(default_factory=Facet)  # which side of the thing named is asked: figures, compliance, quality...

    @property
    def language(self) -> str:
        return self.language_info.language

    @property
    def follow_up(self) -> bool:
        return self.intent == "follow_up"

    def settle_besides(self, excluded: tuple[str, ...] | set[str]) -> None:
        """Take the likeliest intent outside ``excluded`` (with its probability as the confidence)."""
        self.intent, self.confidence = max(((i, p) for i, p in self.probabilities.items() if i not in excluded), key=lambda item: item[1])

    @property
    def alternatives(self) -> list[tuple[str, float]]:
        """The three likeliest intents with their probabilities."""
        ranked = sorted(self.probabilities.items(), key=lambda item: -item[1])[:3]
        return [(name, round(float(p), 3)) for name, p in ranked]


def read_message(
    text: str, model: UnderstandingModel, catalog: Catalog, probabilities: dict[str, float] | None = None, values: list[Value] | None = None
) -> Reading:
    """``text`` on its own: intent with confidence, values with roles, the frame. ``probabilities`` and
    ``values`` are given when training has them already."""
    text = text if isinstance(text, str) else ""
    info = analyze_language(text)
    if "nonsense" in info.flags:
        values = []
    elif values is None:
        values = find_values(text, catalog)
    if probabilities is None:
        intent, confidence, probabilities = model.intent(text, values)
    else:
        intent = max(probabilities, key=probabilities.__getitem__)
        confidence = probabilities[intent]
    tagged = model.roles_of(text, values, intent)
    frame = _frame(tagged, text, info.language, catalog)
    return Reading(text, info, str(intent), float(confidence), probabilities, tagged, frame, facet=facet_of(text))


def retagged(reading: Reading, model: UnderstandingModel, intent: str) -> tuple[list[TaggedValue], Frame]:
    """The message's values with the roles they play under ``intent``: "for 10 concurrent" states
    nothing as a question of its own, but as a follow-up its 10 is a number of users."""
    tagged = model.roles_of(reading.text, [item.value for item in reading.tagged], intent)
    return tagged, _frame(tagged, reading.text, reading.language, model.catalog)


def _frame(tagged: list[TaggedValue], text: str, language: str, catalog: Catalog) -> Frame:
    """The frame of the tagged values; a family said as the GPU ("what about Ascend, then?") holds each of its cards."""
    frame = build_frame(tagged, normalize_text(text), default_currency(language))
    families = {item.value.value for item in tagged if item.value.kind == "gpu_family" and item.role == "gpu"}
    if families:
        frame.slots["gpu"] = [
            card for said in frame.slots["gpu"]
            for card in ([SlotValue(g.id, said.surface, said.start) for g in catalog.family(said.value)] if said.value in families else [said])
        ]  # fmt: skip
    # "a single A10G (aws g5)": one card named twice is one card, not a comparison with itself ("one 4090 or two
    # 4090s?" counts each mention, so it stays a comparison of counts)
    if "gpu" in frame.slots and len(frame.slots.get("gpu_count", [])) < 2:
        named = {}
        for card in frame.slots["gpu"]:
            named.setdefault(card.value, card)
        frame.slots["gpu"] = list(named.values())
    _join_name_and_size(frame, catalog)
    _stated_variants(frame, text, catalog)
    return frame


def _stated_variants(frame: Frame, text: str, catalog: Catalog) -> None:
    """A card said with what tells its variant apart is that variant, so a stated fact wins over the catalog's default row:
    the desktop number said with a laptop word ("my laptop's RTX 3060", its Chinese form) is the laptop row that lists it
    under ``laptop_of``, and a memory size said beside a card ("a 3060 with 6GB") is the row of that family (the card and
    the laptop rows linked to it) holding that memory. A card with no such sibling keeps its row; the answers then say
    the stated memory against the catalog's."""
    cards = frame.slots.get("gpu", [])
    if not cards:
        return
    memory = [float(v.value) for v in frame.slots.get("gpu_memory", []) if isinstance(v.value, int | float) and not isinstance(v.value, bool)]
    laptop = len(cards) == 1 and says("laptop_device", text)  # "my laptop's 3060, or a desktop 4090?" leaves both as named
    for i, said in enumerate(cards):
        card = catalog.find_gpu(str(said.value))
        if card is None:
            continue
        family = [card, *(g for g in catalog.gpus if card.id in g.laptop_of or g.id in card.laptop_of)]
        chosen = next((g for g in family if len(memory) == 1 and g.memory_gb == memory[0]), None)
        if chosen is None and laptop and not card.laptop_of:
            chosen = next((g for g in family if card.id in g.laptop_of), None)
        if chosen is not None and chosen.id != card.id:
            cards[i] = replace(said, value=chosen.id)


def _join_name_and_size(frame: Frame, catalog: Catalog) -> None:
    """A model named without its size and a size said elsewhere in the message ("a 70B model (llama 3.3)", "qwen 2.5, the
    72b") are one model: the catalog model of that name and size takes the name's place and the size is used up. Only
    when exactly one of the sizes said makes a catalog model of the name ("qwen 2.5 at 7B and 72B" stays a range)."""
    sizes = frame.slots.get("size", [])
    if not sizes or not frame.slots.get("model"):
        return
    joined = []
    for i, said in enumerate(frame.slots["model"]):
        if not isinstance(said.value, str) or catalog.find_model(said.value) is not None or SIZE_IN_NAME.search(said.value):
            continue  # a catalog model, or a name that carries its own size ("qwen 2.5 at 7b")
        found = [(size, model) for size in sizes if isinstance(size.value, float)
                 and (model := catalog.model_of_name_and_size(said.value, size.value / 1e9)) is not None]  # fmt: skip
        if len(found) == 1:
            size, model = found[0]
            frame.slots["model"][i] = SlotValue(model.id, said.surface, said.start, said.lead)
            joined.append(size)
    if joined:
        kept = [size for size in sizes if all(size is not used for used in joined)]
        if kept:
            frame.slots["size"] = kept
        else:
            del frame.slots["size"]
