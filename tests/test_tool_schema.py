"""Lean, strict tool schemas for the model: small, a subset of the request models, misspelled arguments refused."""

from __future__ import annotations

import json

import pytest

from advisor.deps import shared_registry
from advisor.tool_schema import LIMITS_FIELD, SCHEMA_BUDGET_CHARS, llm_parameters, llm_tool_names, llm_tools, run_llm_tool, schema_chars
from advisor.validation import closest_fields


@pytest.fixture(scope="module")
def registry():
    return shared_registry()


def test_all_llm_facing_schemas_fit_the_budget(registry):
    size = schema_chars(registry)
    assert size < SCHEMA_BUDGET_CHARS, f"{size} chars: list the new tool's fields in advisor/tool_schema.py LLM_FIELDS"
    full = sum(len(json.dumps(registry.spec(n).request_model.model_json_schema())) for n in registry.names())
    assert size < full / 2.5  # the REST schemas keep every field


def test_max_fit_is_folded_into_estimate_memory(registry):
    names = llm_tool_names(registry)
    assert "max_fit" not in names and "estimate_memory" in names
    assert LIMITS_FIELD in llm_parameters(registry.spec("estimate_memory"))["properties"]


def test_every_llm_field_is_a_request_field_with_a_short_description(registry):
    for tool in llm_tools(registry):
        function = tool["function"]
        spec = registry.spec(function["name"])
        properties = function["parameters"]["properties"]
        extra = set(properties) - set(spec.request_model.model_fields) - {LIMITS_FIELD}
        assert not extra, (function["name"], extra)
        assert function["parameters"]["additionalProperties"] is False
        assert all(len(p.get("description", "")) <= 90 for p in properties.values()), function["name"]
        assert "title" not in json.dumps(properties)
        assert set(function["parameters"].get("required", [])) <= set(properties)


def test_limits_adds_the_largest_batch_and_context(registry):
    outcome = run_llm_tool(registry, "estimate_memory", {"model": "qwen2.5-7b", "gpu": "RTX 4090", LIMITS_FIELD: True})
    assert outcome.ok and outcome.args[LIMITS_FIELD] is True
    limits = outcome.result[LIMITS_FIELD]
    assert limits["max_batch"] >= 1 and limits["max_context"] > 4096
    without_gpu = run_llm_tool(registry, "estimate_memory", {"model": "qwen2.5-7b", LIMITS_FIELD: True})
    assert without_gpu.ok and without_gpu.result[LIMITS_FIELD]["error"]["code"] == "missing_gpu"


@pytest.mark.parametrize(
    "tool, args, wrong, right",
    [
        ("estimate_memory", {"model": "qwen2.5-7b", "gpu_name": "H100"}, "gpu_name", "gpu"),
        ("estimate_memory", {"model": "qwen2.5-7b", "seq_len": 8192}, "seq_len", "context"),
        ("recommend_gpus", {"model": "qwen2.5-7b", "batch_size": 4}, "batch_size", "batch"),
        ("compare_gpus", {"gpu": ["H100"]}, "gpu", "gpus"),
        ("list_gpus", {"vendr": "NVIDIA"}, "vendr", "vendor"),
        ("estimate_training_time", {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "H100", "num_gpu": 8}, "num_gpu", "num_gpus"),
        ("compute_tco", {"gpu": "H100", "utilization_pct": 60}, "utilization_pct", "utilisation_pct"),
        ("search_knowledge", {"question": "why OOM"}, "question", "query"),
        ("diagnose", {"log": "CUDA out of memory"}, "log", "text"),
        ("max_fit", {"model": "qwen2.5-7b", "gpu": "H100", "ctx": 4096}, "ctx", "context"),
    ],
)
def test_a_misspelled_argument_is_refused_naming_the_closest_field_in_both_languages(registry, tool, args, wrong, right):
    outcome = registry.call(tool, args)
    error = outcome.error
    assert error is not None and error["code"] == "unknown_argument"
    assert f"'{wrong}'" in error["en"] and f"'{right}'" in error["en"]
    assert f"“{wrong}”" in error["zh"] and f"“{right}”" in error["zh"]
    assert error["suggestions"][0] == right


def test_request_models_forbid_unknown_fields_for_rest_clients_too(registry):
    for name in registry.names():
        if name == "list_gpus":  # a GET with query parameters: browsers add cache busters
            continue
        assert registry.spec(name).request_model.model_config.get("extra") == "forbid", name


def test_closest_field_falls_back_to_difflib():
    assert closest_fields("contxt", ["context", "batch"]) == ["context"]
    assert closest_fields("zzz", ["context", "batch"]) == []
