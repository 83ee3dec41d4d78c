"""Split a pasted checkpoint name into the model it is and the precision it is stored in.

"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8" → ("Qwen2.5-7B", "gptq-int8"); "llama3.1:70b-instruct-q4_K_M" →
("llama3.1 70b", "q4_k_m"). Which suffixes and tag words mean what is data (knowledge/checkpoint_names.yaml).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from knowledge.bilingual import AdvisorError
from knowledge.checkpoint_names import CheckpointNames
from tools.precision import weight_format
from tools.quantities import parse_param_count


class CheckpointName(BaseModel):
    base: str = Field(description="The name with organisation, variant and precision parts removed, to look up in the catalog.")
    precision: str | None = Field(None, description="Weight-format id the name states, e.g. 'gptq-int8', 'fp8', 'q4_k_m'.")


def _format_id(word: str) -> str | None:
    try:
        return weight_format(word).id
    except AdvisorError:
        return None


def _read_tag(name: str, tag: str, table: CheckpointNames) -> tuple[str, str | None]:
    """An Ollama tag's parts: a size joins the name, variant words are dropped, a quantisation is the precision."""
    precision = None
    for part in filter(None, tag.split("-")):
        if part.casefold() in table.tag_words:
            continue
        if parse_param_count(part) is None and (found := _format_id(part)) is not None:
            precision = found
            continue
        name = f"{name} {part}"
    return name, precision


def split_checkpoint_name(text: str, table: CheckpointNames) -> CheckpointName:
    name = text.strip().rpartition("/")[2]  # "Qwen/Qwen2.5-7B" → "Qwen2.5-7B"
    name, has_tag, tag = name.partition(":")
    precision = None
    if has_tag:
        name, precision = _read_tag(name, tag, table)
    stripped = True
    while stripped:
        stripped = False
        for entry in table.suffixes:
            if len(name) > len(entry.suffix) and name.casefold().endswith(entry.suffix.casefold()):
                name, precision, stripped = name[: -len(entry.suffix)], precision or entry.precision, True
                break
    return CheckpointName(base=name.strip(), precision=precision)
