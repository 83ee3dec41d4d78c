"""The cue words behind the Ask's yes/no flags (``data/ask_cues.yaml``), matched as facet cues are."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.bilingual import Phrases

CUES_FILE = Path(__file__).parent / "data" / "ask_cues.yaml"
Flag = Literal["renting", "buying", "price_only", "price_per_card", "rental_price", "hyperscaler", "owning", "asks_why", "asks_count", "asks_price",
               "startup_phase", "under_load_phase", "reports_oom", "asks_if_oom", "short_of_plan",
               "replaces_hardware", "quantised", "quality_first", "weighs_claim", "whole_server", "rents_out", "asks_technique", "asks_equivalent", "asks_yes_no", "weighs_premium",
               "regulated_sector", "client_premises", "production_service", "uptime_target",
               "asks_spec_sheet", "asks_if_fits", "total_speed", "per_user_speed", "judges_technique", "recurring",
               "alternative_joiner", "list_joiner", "asks_which", "has_cards", "purchase_offer", "points_at_setup", "pointer_holds_count",
               "asks_judgement", "asks_how_to", "timeline_near", "timeline_open", "price_future", "off_topic_use", "ai_work", "names_token_rate",
               "expects_figure", "training_words", "asks_figure_scope", "asks_figure_includes",
               "points_at_figure", "judges_quality", "self_hosting", "laptop_device", "rents_only",
               "renting_ok", "no_server_room", "asks_table"]


class ExceptedCues(Phrases):
    """Cue words that do not count when the next word begins with one of ``not_before`` (``skipping`` may come between)."""

    not_before: list[str] = Field(min_length=1)
    skipping: list[str] = Field(default_factory=list)


class NegatableCues(Phrases):
    """Cue words that do not count right after one of ``not_after`` ("no quantization", "without quantising": the flag is denied)."""

    not_after: list[str] = Field(min_length=1)


class AskCues(BaseModel):
    """Every flag the Ask reads from words must have its cues here, in both languages; no other key is allowed."""

    model_config = ConfigDict(extra="forbid")
    renting: Phrases
    buying: Phrases
    price_only: Phrases
    price_per_card: Phrases
    rental_price: Phrases
    hyperscaler: Phrases
    owning: Phrases
    asks_why: Phrases
    asks_count: ExceptedCues
    asks_price: ExceptedCues
    owns_hardware: Phrases
    personal_machine: Phrases
    leans_on_active: Phrases
    beyond_reach: Phrases
    startup_phase: Phrases
    under_load_phase: Phrases
    reports_oom: Phrases
    short_of_plan: Phrases
    recurring: Phrases
    asks_if_oom: Phrases
    replaces_hardware: Phrases
    quantised: NegatableCues
    quality_first: Phrases
    asks_technique: Phrases
    speaks_of_life: Phrases
    judges_life: Phrases
    asks_renting_side: Phrases
    weighs_claim: Phrases
    whole_server: Phrases
    rents_out: Phrases
    asks_equivalent: Phrases
    asks_yes_no: NegatableCues
    weighs_premium: Phrases
    regulated_sector: Phrases
    asks_table: Phrases
    client_premises: Phrases
    production_service: Phrases
    uptime_target: Phrases
    asks_spec_sheet: Phrases
    asks_if_fits: Phrases
    total_speed: Phrases
    per_user_speed: Phrases
    judges_technique: Phrases
    alternative_joiner: Phrases
    list_joiner: Phrases
    asks_which: Phrases
    has_cards: Phrases
    purchase_offer: Phrases
    points_at_setup: Phrases
    pointer_holds_count: Phrases
    asks_judgement: Phrases
    asks_how_to: Phrases
    timeline_near: ExceptedCues
    timeline_open: Phrases
    price_future: Phrases
    off_topic_use: Phrases
    ai_work: Phrases
    names_token_rate: Phrases
    expects_figure: Phrases
    training_words: Phrases
    asks_figure_scope: Phrases
    asks_figure_includes: Phrases
    points_at_figure: Phrases
    judges_quality: Phrases
    self_hosting: Phrases
    laptop_device: Phrases
    rents_only: Phrases
    renting_ok: Phrases
    no_server_room: Phrases


def _cue_table(path: Path, table_model: type[BaseModel]) -> BaseModel:
    """A cue table validated by ``table_model``, so every flag has its cues."""
    return table_model.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def _cue_patterns(path: Path, table_model: type[BaseModel], compile_cues: Callable[[Phrases], re.Pattern[str]]) -> dict[str, re.Pattern[str]]:
    """Each field of a cue table as one compiled pattern."""
    table = _cue_table(path, table_model)
    return {name: compile_cues(getattr(table, name)) for name in table_model.model_fields}


def _flag_pattern(cues: Phrases) -> re.Pattern[str]:
    if isinstance(cues, ExceptedCues):
        return cue_pattern(cues, cues.not_before, cues.skipping)
    return cue_pattern(cues)


@lru_cache(maxsize=1)
def _ask_cues() -> AskCues:
    return _cue_table(CUES_FILE, AskCues)


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern[str]]:
    table = _ask_cues()
    return {name: _flag_pattern(getattr(table, name)) for name in AskCues.model_fields}


@lru_cache(maxsize=1)
def _negators() -> dict[str, tuple[str, ...]]:
    """The words that deny each negatable flag's cue when written just before it, longest first."""
    table = _ask_cues()
    return {name: tuple(sorted((w.lower() for w in getattr(table, name).not_after), key=len, reverse=True))
            for name in AskCues.model_fields if isinstance(getattr(table, name), NegatableCues)}


def _denied(before: str, negators: tuple[str, ...]) -> bool:
    """``before`` ends with a negator, a Latin one as a whole word ("no", not the end of "piano")."""
    before = before.rstrip(" -")
    for word in negators:
        if before.endswith(word):
            rest = before[: len(before) - len(word)]
            if not word.isascii() or not rest or not rest[-1].isalnum():
                return True
    return False


def _affirmed(pattern: re.Pattern[str], text: str, negators: tuple[str, ...]) -> bool:
    """A cue found in ``text`` that no negator stands right before (spaces between allowed)."""
    return any(not _denied(text[: m.start()], negators) for m in pattern.finditer(text))


def says(flag: Flag, *texts: str) -> bool:
    """Whether any of ``texts`` carries a cue of ``flag`` (one a negator stands before does not count)."""
    pattern, negators = _patterns()[flag], _negators().get(flag, ())
    return any(_affirmed(pattern, normalize_text(text), negators) for text in texts if isinstance(text, str))


def without(flag: Flag, text: str) -> str:
    """``text`` normalised, with the cue words of ``flag`` taken out: the power of "these few boxes" without its pointer
    to the thread's servers asks no count (the Chinese pointer to "these machines" holds the word for "how many machines")."""
    return _patterns()[flag].sub(" ", normalize_text(text)) if isinstance(text, str) else ""


DIALOGUE_CUES_FILE = Path(__file__).parent / "data" / "dialogue_cues.yaml"
DialogueCue = Literal["aside", "courtesy", "refers_back", "choice"]


class DialogueCues(BaseModel):
    """The cue words of the continuation model's features (``data/dialogue_cues.yaml``), in both languages."""

    model_config = ConfigDict(extra="forbid")
    aside: Phrases
    courtesy: Phrases
    refers_back: Phrases
    choice: Phrases


def _dialogue_pattern(phrases: Phrases) -> re.Pattern[str]:
    # matched on lower-cased text as written (the continuation features were trained so), \b counting Chinese characters as letters too
    return re.compile(rf"\b(?:{_alternatives(phrases.en)})\b|{_alternatives(phrases.zh)}")


@lru_cache(maxsize=1)
def _dialogue_patterns() -> dict[str, re.Pattern[str]]:
    return _cue_patterns(DIALOGUE_CUES_FILE, DialogueCues, _dialogue_pattern)


def _alternatives(cues: list[str]) -> str:
    return "|".join(re.escape(cue.lower()) for cue in sorted(cues, key=len, reverse=True))


def dialogue_cue(cue: DialogueCue, text: str) -> bool:
    """Whether ``text`` (as written, lower-cased) carries a cue word of ``cue``."""
    return isinstance(text, str) and bool(_dialogue_patterns()[cue].search(text.lower()))
