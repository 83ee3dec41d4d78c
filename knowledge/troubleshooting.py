"""Troubleshooting rule files: read ``knowledge/troubleshooting/<family>.yaml`` as data.

Each file holds one family's rules and where its facts come from. Here the files are only read
and checked at file level; ``tools.troubleshoot.rulebook`` validates and compiles the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.catalog import CatalogError

RULES_DIR = Path(__file__).parent / "troubleshooting"
# Yes/no questions a report may ask, beside the rule files (a subfolder, so the rule-file glob does not read it).
QUESTIONS_FILE = Path("questions") / "yes_no.yaml"
# Facts a thread adds in words ("always the same node"), each with the setup fields it states: also a subfolder.
FACTS_FILE = Path("facts") / "thread_facts.yaml"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C loader reads xid.yaml ~10× faster
Family = Literal["oom", "utilization", "thermal", "xid", "nccl", "hardware", "checklist"]
FAMILIES: tuple[str, ...] = Family.__args__  # type: ignore[attr-defined]


class _RuleFileSchema(BaseModel):
    model_config = ConfigDict(extra="forbid")
    family: Family
    source: str = Field(min_length=3)
    shared: Any = Field(None, description="Free-form block that only holds YAML anchors reused by the rules.")
    defaults: dict[str, Any] = Field(
        default_factory=dict, description="Fields every rule of the family has unless it sets them itself (named_strength, fault_in)."
    )
    by_meta: dict[str, dict[str, dict[str, Any]]] = Field(
        default_factory=dict,
        description="meta key -> its value -> fields a rule with that meta value has unless it sets them itself: the Xid "
        "catalog's resolution buckets decide where the fault lies and whether the GPU may keep running.",
    )
    rules: list[Any] = Field(min_length=1)


@dataclass(frozen=True)
class RuleFile:
    path: Path
    family: str
    source: str
    rules: list[Any]
    defaults: dict[str, Any]
    by_meta: dict[str, dict[str, dict[str, Any]]]

    def completed(self, rule: Any) -> Any:
        """The rule with the family's defaults and the fields its meta values imply, its own fields winning."""
        if not isinstance(rule, dict):
            return rule
        implied = dict(self.defaults)
        for key, table in self.by_meta.items():
            implied.update(table.get(str((rule.get("meta") or {}).get(key, "")), {}))
        return {**implied, **rule}


def read_rule_files(directory: Path = RULES_DIR) -> list[RuleFile]:
    """Every ``<family>.yaml`` in ``directory``; ``CatalogError`` names the file that is wrong."""
    paths = sorted(directory.glob("*.yaml"))
    if not paths:
        raise CatalogError(f"{directory}: no troubleshooting rule files (*.yaml)")
    files = []
    for path in paths:
        try:
            raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
            file = _RuleFileSchema.model_validate(raw)
        except (yaml.YAMLError, ValidationError) as exc:
            raise CatalogError(f"{path}: not a valid rule file: {exc}") from exc
        if path.stem != file.family:
            raise CatalogError(f"{path}: family '{file.family}' must match the file name")
        files.append(RuleFile(path, file.family, file.source, file.rules, file.defaults, file.by_meta))
    return files


class _QuestionFileSchema(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str = Field(min_length=3)
    shared: Any = Field(None, description="Free-form block that only holds YAML anchors.")
    questions: list[Any] = Field(min_length=1)


def read_question_file(directory: Path = RULES_DIR) -> list[Any]:
    """The yes/no questions of ``directory/questions/yes_no.yaml``, unvalidated; none when the file is absent."""
    path = directory / QUESTIONS_FILE
    if not path.exists():
        return []
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
        return _QuestionFileSchema.model_validate(raw).questions
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path}: not a valid question file: {exc}") from exc


class _FactFileSchema(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str = Field(min_length=3)
    facts: list[Any] = Field(min_length=1)


def read_fact_file(directory: Path = RULES_DIR) -> list[Any]:
    """The thread facts of ``directory/facts/thread_facts.yaml``, unvalidated; none when the file is absent."""
    path = directory / FACTS_FILE
    if not path.exists():
        return []
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
        return _FactFileSchema.model_validate(raw).facts
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path}: not a valid fact file: {exc}") from exc
