"""Turn pydantic validation errors, and numbers no formula can use (NaN, inf), into one bilingual ``AdvisorError``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from knowledge.bilingual import AdvisorError
from tools.checks import is_finite_number, shown_number

# Chinese messages by pydantic error type; {placeholders} are filled from the error's context.
_ZH_BY_TYPE = {
    "missing": "缺少必填项",
    "greater_than": "必须大于 {gt}",
    "greater_than_equal": "必须不小于 {ge}",
    "less_than": "必须小于 {lt}",
    "less_than_equal": "必须不大于 {le}",
    "literal_error": "取值必须是其中之一：{expected}",
    "int_parsing": "必须是整数",
    "float_parsing": "必须是数字",
    "bool_parsing": "必须是布尔值",
    "string_type": "必须是字符串",
    "too_short": "至少需要 {min_length} 项",
    "too_long": "最多 {max_length} 项",
    "extra_forbidden": "不支持这个字段",
    "model_type": "必须是 JSON 对象",
    "dict_type": "必须是 JSON 对象",
    "list_type": "必须是列表",
    "int_type": "必须是整数",
    "int_from_float": "必须是整数",
    "float_type": "必须是数字",
    "finite_number": "必须是有限的数字",
    "string_too_long": "最多 {max_length} 个字符",
    "string_too_short": "至少需要 {min_length} 个字符",
    "recursion_loop": "嵌套层数过多",
}
# Echoed values are cut so a 1 MB string in an argument does not come back as a 1 MB message.
MAX_ECHO_CHARS = 80


def bilingual_validation_error(exc: ValidationError) -> AdvisorError:
    return bilingual_errors(exc.errors(include_url=False))


def bilingual_errors(errors: Sequence[Mapping[str, Any]]) -> AdvisorError:
    """Same translation for error dicts already taken out of a ValidationError (e.g. FastAPI's)."""
    en_parts, zh_parts = [], []
    for error in list(errors)[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "input"
        en_parts.append(f"{where}: {error['msg']}")
        zh_parts.append(f"{where}：{_zh_message(error)}")
    return AdvisorError(
        "invalid_arguments",
        "Invalid input — " + "; ".join(en_parts) + ".",
        "输入有误——" + "；".join(zh_parts) + "。",
    )


def _zh_message(error: Mapping[str, Any]) -> str:
    template = _ZH_BY_TYPE.get(error["type"], "取值无效")
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
        if close:
            en_parts.append(f"'{shown}' (did you mean '{close[0]}'?)")
            zh_parts.append(f"“{shown}”（是不是想用“{close[0]}”？）")
        else:
            en_parts.append(f"'{shown}'")
            zh_parts.append(f"“{shown}”")
    return AdvisorError(
        "unknown_argument",
        f"{tool} has no argument " + ", ".join(en_parts) + f". Valid arguments: {', '.join(valid)}.",
        f"{tool} 没有参数 " + "、".join(zh_parts) + f"。可用参数：{', '.join(valid)}。",
        suggestions or list(valid),
    )


def malformed_json(detail: str) -> AdvisorError:
    """Input that is not JSON at all (API body, CLI --json, history file)."""
    return AdvisorError(
        "malformed_json",
        f"The input is not valid JSON ({detail}). Send a JSON object, e.g. {{\"gpus\": [\"H100\"]}}.",
        f"输入不是合法的 JSON（{detail}）。请提供 JSON 对象，例如 {{\"gpus\": [\"H100\"]}}。",
    )


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
    raise AdvisorError(
        "invalid_number",
        f"Invalid input — {where}: must be a finite number (got {shown}).",
        f"输入有误——{where}：必须是有限的数字（收到的是 {shown}）。",
    )


def result_not_finite(path: str) -> AdvisorError:
    """A tool produced NaN/inf from finite inputs: the inputs were too extreme to compute with."""
    return AdvisorError(
        "result_out_of_range",
        f"The inputs are too extreme to give a meaningful figure ({path} is not a finite number). Check the units and magnitudes.",
        f"输入数值过于极端，无法得到有意义的结果（{path} 不是有限的数字）。请检查单位和数量级。",
    )
