"""Turn pydantic validation errors, and numbers no formula can use (NaN, inf), into one bilingual ``AdvisorError``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from knowledge.bilingual import AdvisorError, Text
from knowledge.wording import Wording
from tools.checks import is_finite_number, shown_number

TEXT = Wording(Path(__file__).with_name("validation_text.yaml"))
# Chinese messages by pydantic error type; {placeholders} are filled from the error's context.
_ZH_BY_TYPE: dict[str, str] = TEXT.data["pydantic_zh"]
# Echoed values are cut so a 1 MB string in an argument does not come back as a 1 MB message.
MAX_ECHO_CHARS = 80


def bilingual_validation_error(exc: ValidationError) -> AdvisorError:
    return bilingual_errors(exc.errors(include_url=False))


def bilingual_errors(errors: Sequence[Mapping[str, Any]]) -> AdvisorError:
    """Same translation for error dicts already taken out of a ValidationError (e.g. FastAPI's)."""
    en_parts, zh_parts = [], []
    for error in list(errors)[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "input"
        en_parts.append(TEXT.pick("field_problem", "en", where=where, problem=error["msg"]))
        zh_parts.append(TEXT.pick("field_problem", "zh", where=where, problem=_zh_message(error)))
    return _error("invalid_arguments", "invalid_input", parts=_joined("part_separator", en_parts, zh_parts))


def _joined(separator: str, en_parts: list[str], zh_parts: list[str]) -> Text:
    en, zh = TEXT.pair(separator)
    return Text(en=en.join(en_parts), zh=zh.join(zh_parts))


def _error(code: str, key: str, suggestions: Sequence[str] = (), **values: Any) -> AdvisorError:
    text = TEXT.text(key, **values)
    return AdvisorError(code, text.en, text.zh, suggestions)


def _zh_message(error: Mapping[str, Any]) -> str:
    template = _ZH_BY_TYPE.get(error["type"], _ZH_BY_TYPE["other"])
    context = {key: shorten(str(value)) for key, value in (error.get("ctx") or {}).items()}
    try:
        return template.format(**context)
    except (KeyError, IndexError):
        return template.split(" {")[0].split("：{")[0]


# Names models and people use for a field under another name; difflib cannot see these.
FIELD_SYNONYMS = {
    "gpu": ("gpu_name", "gpu_model", "gpu_type", "device", "card", "accelerator"),
    "gpus": ("gpu_names", "gpu_list", "devices", "cards"),
    "context": ("seq_len", "seq_length", "sequence_length", "max_seq_len", "context_length", "ctx", "ctx_len", "max_length", "num_ctx"),
    "batch": ("batch_size", "bs", "concurrency", "micro_batch_size"),
    "model": ("model_name", "model_id", "llm"),
    "precision": ("dtype", "quantization", "quant", "data_type", "weight_precision"),
    "num_gpus": ("gpu_count", "n_gpus", "num_gpu", "gpus_count", "count"),
    "params_b": ("params", "parameters", "num_params", "size_b", "model_size"),
    "text": ("log", "logs", "symptom", "error", "message"),
    "query": ("question", "q", "search"),
    "tokens": ("num_tokens", "dataset_tokens", "train_tokens"),
    "utilisation_pct": ("utilization_pct", "utilization", "utilisation"),
}


def closest_fields(name: str, valid: Iterable[str]) -> list[str]:
    """Valid field names the misspelled ``name`` most likely meant: a known synonym, else difflib."""
    valid = list(valid)
    key = name.strip().lower()
    for field, synonyms in FIELD_SYNONYMS.items():
        if field in valid and key in synonyms:
            return [field]
    return difflib.get_close_matches(key, valid, n=3, cutoff=0.6)


def unknown_arguments(tool: str, unknown: Sequence[str], valid: Sequence[str]) -> AdvisorError:
    """Arguments a tool does not have, each with the closest valid field (both languages)."""
    en_parts, zh_parts, suggestions = [], [], []
    for name in list(unknown)[:5]:
        shown = shorten(str(name), 40)
        close = closest_fields(str(name), valid)
        suggestions += [c for c in close if c not in suggestions]
        named = TEXT.text("unknown_name_close", shown=shown, close=close[0]) if close else TEXT.text("unknown_name", shown=shown)
        en_parts.append(named.en)
        zh_parts.append(named.zh)
    parts = _joined("name_separator", en_parts, zh_parts)
    return _error("unknown_argument", "unknown_argument", suggestions or list(valid), tool=tool, parts=parts, valid=", ".join(valid))


def malformed_json(detail: str) -> AdvisorError:
    """Input that is not JSON at all (API body, CLI --json, history file)."""
    return _error("malformed_json", "malformed_json", detail=detail)


def shorten(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def without_long_echoes(error: AdvisorError, request: BaseModel) -> AdvisorError:
    """``error`` with every quoted argument longer than ``MAX_ECHO_CHARS`` cut short.

    Tools quote the value they could not use ("Unknown GPU 'xyz'"); a 1 MB argument would make a
    1 MB message in both languages.
    """
    long_strings = sorted({s for s in _strings(request) if len(s) > MAX_ECHO_CHARS}, key=len, reverse=True)
    if not long_strings:
        return error

    def cut(text: str) -> str:
        for value in long_strings:
            text = text.replace(value, shorten(value))
        return text

    return AdvisorError(error.code, cut(error.en), cut(error.zh), [cut(s) for s in error.suggestions])


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _strings(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def non_finite_numbers(value: Any) -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every NaN/±inf float, or int too big for a float, inside ``value``.

    Pydantic's ``float`` accepts NaN, "inf" and "1e309", and ``int`` accepts 10**400; none of them
    is a quantity any tool can compute with, and NaN silently passes every ``<``/``>`` range check.
    Iterative, so a pasted config nested thousands of levels deep cannot exhaust the stack.
    """
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, (int, float)):  # bool is an int and always finite
            if not is_finite_number(item):
                yield path or "input", item
            continue
        if isinstance(item, BaseModel):
            children = [(name, getattr(item, name)) for name in type(item).model_fields]
        elif isinstance(item, Mapping):
            children = list(item.items())
        elif isinstance(item, (list, tuple)):
            children = list(enumerate(item))
        else:
            continue
        stack.extend((f"{path}.{key}" if path else str(key), child) for key, child in reversed(children))


def reject_non_finite(request: BaseModel) -> None:
    """Raise one bilingual ``AdvisorError`` if any argument is NaN, infinite or beyond float range."""
    found = list(non_finite_numbers(request))
    if not found:
        return
    where = ", ".join(path for path, _ in found[:5])
    shown = shorten(shown_number(found[0][1]))
    raise _error("invalid_number", "invalid_number", where=where, shown=shown)


def result_not_finite(path: str) -> AdvisorError:
    """A tool produced NaN/inf from finite inputs: the inputs were too extreme to compute with."""
    return _error("result_out_of_range", "result_out_of_range", path=path)
