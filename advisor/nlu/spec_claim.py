"""Which catalog figure of a card a message asks about, and the comparison it states between two cards.

"What is the H200's memory bandwidth?" asks for ``bandwidth_gbs``; "the H20 has more memory than the H100, right?"
states that the H20 has more ``memory_gb`` than the H100 (the Chinese wording alike, its cues in the data file). The words live in ``data/spec_fields.yaml``; the spec answer leads with the field
asked, and with right or wrong on the stated comparison, from the catalog's figures."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

FIELDS_FILE = Path(__file__).parent / "data" / "spec_fields.yaml"
COMPUTE = "compute"
DEFAULT_COMPUTE = "bf16_tflops"  # the catalog's dense figure a bare "TFLOPS" is compared on


class SpecFieldWords(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fields: dict[str, Phrases]
    precisions: dict[str, Phrases]
    than: Phrases
    than_not_before: list[str]
    not_compared: list[str] = Field(default_factory=list, description="Fields asked of a card that no comparison is stated on.")
    unit_cues: dict[str, list[str]] = Field(default_factory=dict, description="Cues that are a unit only → the fields of that unit: "
                                            "the unit names a field only when no other cue names one of those.")
    directions: dict[Literal["more", "less"], Phrases]


class ComparisonClaim(BaseModel):
    """A comparison the message states between two named cards, to be checked against the catalog."""

    model_config = ConfigDict(frozen=True)

    field: str = Field(description='The catalog figure compared: "memory_gb", "bandwidth_gbs", "bf16_tflops", "fp8_tflops", "tdp_w".')
    direction: Literal["more", "less"] = Field(description='"more": the subject is said to have more of it (higher, bigger, faster).')
    subject: str = Field(description="The catalog id of the card the claim is about (the first named).")
    other: str = Field(description="The catalog id of the card it is set against.")


@lru_cache(maxsize=1)
def _words() -> SpecFieldWords:
    return SpecFieldWords.model_validate(yaml.safe_load(FIELDS_FILE.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _patterns():
    words = _words()
    fields = [(name, cue_pattern(cues)) for name, cues in words.fields.items()]
    precisions = [(name, cue_pattern(cues)) for name, cues in words.precisions.items()]
    directions = [(name, cue_pattern(cues)) for name, cues in words.directions.items()]
    return fields, precisions, cue_pattern(words.than), directions


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Each field cue found, the longer of two overlapping ones kept, in the order written."""
    fields, *_ = _patterns()
    found = sorted(((m.start(), m.end(), name) for name, pattern in fields for m in pattern.finditer(text)),
                   key=lambda span: span[0] - span[1])  # fmt: skip
    kept: list[tuple[int, int, str]] = []
    for start, end, name in found:
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, name))
    return sorted(kept)


def _compute_field(text: str) -> str:
    _, precisions, _, _ = _patterns()
    return next((name for name, pattern in precisions if pattern.search(text)), DEFAULT_COMPUTE)


def spec_fields(message: str) -> tuple[str, ...]:
    """The catalog figures ``message`` asks about, each once, in the order written ("H200 memory bandwidth?" →
    ("bandwidth_gbs",)); a precision named alone ("FP8 TFLOPS of the H100") picks that precision's compute figure."""
    text = normalize_text(message)
    units = {normalize_text(cue): set(fields) for cue, fields in _words().unit_cues.items()}
    spans = _spans(text)
    # a unit alone ("GB/s") names a figure only when no other cue names a figure of that unit ("the A800's card-to-card link
    # in GB/s?" asks the link)
    by_words = {name for start, end, name in spans if text[start:end] not in units}
    spans = [span for span in spans if not units.get(text[span[0]:span[1]], set()) & by_words]
    named = []
    for _, _, name in spans:
        field = _compute_field(text) if name == COMPUTE else name
        if field not in named:
            named.append(field)
    return tuple(named)


def comparison_claim(message: str, gpus_in_order: list[tuple[int, str]]) -> ComparisonClaim | None:
    """The comparison ``message`` states between its first two named cards (``gpus_in_order``: (position in the
    normalised text, catalog id)), on the one figure it names; None without two cards, a figure, a "than" word and a
    direction on the side of it the language puts one."""
    ids = list(dict.fromkeys(gpu for _, gpu in sorted(gpus_in_order)))
    fields = spec_fields(message)
    if len(ids) < 2 or len(fields) != 1 or fields[0] in _words().not_compared:
        return None
    text = normalize_text(message)
    _, _, than, directions = _patterns()
    not_before = tuple(normalize_text(word) for word in _words().than_not_before)
    match = next((m for m in than.finditer(text) if not text[m.end():].lstrip().startswith(not_before)), None)
    if match is None:
        return None
    side = text[: match.start()] if match.group(0).isascii() else text[match.end():]
    found = [(m.start(), name) for name, pattern in directions for m in pattern.finditer(side)]
    if not found:
        return None
    direction = max(found)[1] if match.group(0).isascii() else min(found)[1]  # the word nearest the "than"
    return ComparisonClaim(field=fields[0], direction=direction, subject=ids[0], other=ids[1])
