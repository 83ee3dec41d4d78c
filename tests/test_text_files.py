"""The YAML text files that hold wording moved out of code: every phrase has both languages with the same blanks, and
the one loader (knowledge/wording.py) fills each language with its own form."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from knowledge.bilingual import Text
from knowledge.wording import Wording, shipped

ROOT = Path(__file__).resolve().parent.parent
TEXT_FILES = [
    "advisor/labels.yaml",
    "advisor/tool_summaries.yaml",
    "advisor/validation_text.yaml",
    "advisor/nlu/data/schema.yaml",
    "advisor/offline/planner_text.yaml",
    "advisor/offline/workload_text.yaml",
    "advisor/interfaces/ui_text.yaml",
    "advisor/interfaces/web_results_text.yaml",
    "advisor/retrieval/gpu_family_text.yaml",
    "knowledge/memory_verdict_text.yaml",
    "knowledge/fact_notes.yaml",
    "knowledge/input_names_text.yaml",
    "knowledge/input_errors_text.yaml",
    "knowledge/cost_text.yaml",
    "knowledge/mfu_defaults.yaml",
    "knowledge/training_time_text.yaml",
    "knowledge/tco_text.yaml",
    "knowledge/fabric_text.yaml",
    "knowledge/precision_text.yaml",
    "knowledge/model_text.yaml",
    "knowledge/memory_text.yaml",
    "knowledge/facility_text.yaml",
    "knowledge/recommend_text.yaml",
    "knowledge/troubleshoot_text.yaml",
    "knowledge/serving_text.yaml",
    "advisor/cli_text.yaml",
    "advisor/config_text.yaml",
    "advisor/messages_text.yaml",
    "advisor/interfaces/interfaces_text.yaml",
    "advisor/proposal/text.yaml",
    "advisor/llm/llm_text.yaml",
    "advisor/tool_schema_text.yaml",
    "advisor/offline/turn_text.yaml",
] + sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "advisor" / "offline" / "tasks").rglob("*.yaml"))  # each task's wording
NOT_PHRASES = {"examples", "pydantic_zh", "premise_stated"}  # sample questions in either language; Chinese beside pydantic's own English; word lists


def blanks(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def phrases(node, key: str = ""):
    """Every {en, zh} pair of a text file, with its dotted key."""
    if isinstance(node, dict) and set(node) == {"en", "zh"}:
        yield key, node
    elif isinstance(node, dict):
        for name, child in node.items():
            if name not in NOT_PHRASES:
                yield from phrases(child, f"{key}.{name}" if key else str(name))


@pytest.mark.parametrize("path", TEXT_FILES)
def test_every_phrase_has_both_languages_with_the_same_blanks(path):
    found = list(phrases(Wording(ROOT / path).data))
    assert found, f"{path} holds no phrases"
    for key, row in found:
        en, zh = row["en"], row["zh"]
        if isinstance(en, list):  # table headers: one per column in each language
            assert len(en) == len(zh) and all(en) and all(zh), f"{path}: {key}"
            continue
        assert isinstance(en, str) and isinstance(zh, str), f"{path}: {key}"
        assert en.strip() or key.endswith(("fraction", "sentence_separator", "joiner")), f"{path}: {key} has no English"
        assert blanks(en) == blanks(zh), f"{path}: {key} has different blanks in English and Chinese"


def test_each_language_is_filled_with_its_own_form(tmp_path):
    file = tmp_path / "sample_text.yaml"
    file.write_text('line: {en: "{count} cards, {where}", zh: "{count} 张卡，{where}"}\n', encoding="utf-8")
    wording = Wording(file)
    place = Text(en="in the rack", zh="在机柜里")
    assert wording.text("line", count=4, where=place) == Text(en="4 cards, in the rack", zh="4 张卡，在机柜里")
    assert wording.pick("line", "zh", count=2, where=place) == "2 张卡，在机柜里"
    assert wording.pick("line", "fr", count=2, where=place) == "2 cards, in the rack"  # any other language reads English
    assert wording.pair("line") == ("{count} cards, {where}", "{count} 张卡，{where}")


def test_nested_keys_and_a_missing_key():
    verdict = shipped("memory_verdict_text.yaml")
    assert "KV" in verdict.text("levers.inference.kv_cache").en and "KV" in verdict.text("levers.inference.kv_cache").zh
    with pytest.raises(KeyError):
        verdict.text("levers.inference.no_such_part")
