"""Turn pydantic validation errors into one bilingual ``AdvisorError``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from tools.errors import AdvisorError

_ZH_BY_TYPE = {
    "missing": "缺少必填项",
    "greater_than": "必须大于",
    "greater_than_equal": "必须不小于",
    "less_than": "必须小于",
    "less_than_equal": "必须不大于",
    "literal_error": "取值必须是其中之一",
    "int_parsing": "必须是整数",
    "float_parsing": "必须是数字",
    "bool_parsing": "必须是布尔值",
    "string_type": "必须是字符串",
    "too_short": "太短",
    "too_long": "太长",
    "extra_forbidden": "不支持这个字段",
}


def bilingual_validation_error(exc: ValidationError) -> AdvisorError:
    return bilingual_errors(exc.errors(include_url=False))


def bilingual_errors(errors: Sequence[Mapping[str, Any]]) -> AdvisorError:
    """Same translation for error dicts already taken out of a ValidationError (e.g. FastAPI's)."""
    en_parts, zh_parts = [], []
    for error in list(errors)[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "input"
        en_parts.append(f"{where}: {error['msg']}")
        ctx = error.get("ctx") or {}
        detail = next(iter(ctx.values()), "") if ctx else ""
        zh = _ZH_BY_TYPE.get(error["type"], "取值无效")
        zh_parts.append(f"{where}：{zh}{(' ' + str(detail)) if detail else ''}")
    return AdvisorError(
        "invalid_arguments",
        "Invalid input — " + "; ".join(en_parts) + ".",
        "输入有误——" + "；".join(zh_parts) + "。",
    )


def malformed_json(detail: str) -> AdvisorError:
    """Input that is not JSON at all (API body, CLI --json, history file)."""
    return AdvisorError(
        "malformed_json",
        f"The input is not valid JSON ({detail}). Send a JSON object, e.g. {{\"gpus\": [\"H100\"]}}.",
        f"输入不是合法的 JSON（{detail}）。请提供 JSON 对象，例如 {{\"gpus\": [\"H100\"]}}。",
    )
