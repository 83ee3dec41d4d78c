"""Built-in values: every mention of a name, number-with-unit or known keyword, resolved.

This is the deterministic half of understanding (as in Snips' built-in entities): it finds
*what* was written — "8 cards" is a count of cards, "0.8 yuan/kWh" money per kWh, "A100 80GB" a
catalog GPU — and resolves it to a value. *Which role* a value plays (a GPU count or a TP
degree, a budget or a server price, a context or an output length) is left to the trained
role tagger. Nothing here raises; odd input gives fewer values.
"""

from __future__ import annotations

import re
from dataclasses import replace

from advisor.name_matcher import normalize_text
from advisor.nlu.extractors import claims, counts, money, names, times  # noqa: F401 (importing a kind's module registers its extractors)
from advisor.nlu.number_values import Value
from advisor.nlu.pipeline import PIPELINE, PipelineError
from advisor.nlu.scan import REGISTRY, run
from knowledge.catalog import Catalog

MAX_TEXT = 4000  # values are read from the start and the end of long pastes, where the question sits
# Offsets must stay those of the text, so collapsed spaces are filled with a character no pattern
# matches: a long run of spaces would make the unit patterns' optional spaces backtrack quadratically.
INERT = "\x00"
LONG_SPACE = re.compile(r"\s{4,}")


def declared_extractors(declared: list[str] = PIPELINE.extractors) -> tuple[str, ...]:
    """pipeline.yaml's extractor order, every registered extractor in it once; else the process stops naming them."""
    unknown = [name for name in declared if name not in REGISTRY]
    left_out = [name for name in REGISTRY if name not in declared]
    if unknown or left_out:
        raise PipelineError(f"pipeline.yaml extractors: unknown {unknown or 'none'}; registered but not listed {left_out or 'none'}")
    return tuple(declared)


EXTRACTORS = declared_extractors()


def find_values(text: str, catalog: Catalog) -> list[Value]:
    """Every value in ``text`` (normalised with ``normalize_text``), non-overlapping, in order."""
    text = normalize_text(text if isinstance(text, str) else "")
    if len(text) <= MAX_TEXT:
        return _scan(text, catalog)
    # Only the head and the tail are read; tail offsets are moved back to where they are in ``text``.
    head, tail = text[: MAX_TEXT // 2], text[-MAX_TEXT // 2 :]
    shift = len(text) - len(head) - len(tail) - 1
    values = _scan(head + INERT + tail, catalog)
    return [v if v.start < len(head) else replace(v, start=v.start + shift, end=v.end + shift) for v in values]


def _scan(text: str, catalog: Catalog) -> list[Value]:
    text = LONG_SPACE.sub(lambda run: " " + INERT * (len(run.group()) - 2) + " ", text)
    return run(text, catalog, EXTRACTORS)
