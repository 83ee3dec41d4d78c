"""Every registered tool, called through the registry with hostile arguments, answers with a
bilingual error or a finite result: never an exception, never NaN/inf, never a hang."""

from __future__ import annotations

import math
import re
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from advisor.deps import default_registry
from advisor.registry import Registry, ToolOutcome, ToolSpec
from advisor.validation import non_finite_numbers

registry = default_registry()
TOOLS = registry.names()
CJK = re.compile(r"[\u4e00-\u9fff]")
# Errors the registry uses to contain a tool bug; a tool that triggers them has a bug to fix.
BUG_CODES = {"internal_error", "result_out_of_range"}

# Small valid calls of each tool (one per mode), so one hostile field at a time reaches the tool's own checks.
BASE_CALLS: dict[str, list[dict]] = {
    "recommend_gpus": [{"model": "llama-3.1-8b", "max_gpus": 8}, {"model": "qwen2.5-72b", "task": "qlora", "currency": "CNY", "max_gpus": 8}],
    "estimate_memory": [{"model": "llama-3.1-8b"}, {"model": "llama-3.1-8b", "mode": "training", "num_gpus": 8, "zero_stage": 3}],
    "estimate_throughput": [
        {"model": "llama-3.1-8b", "gpu": "h100-sxm", "batch": 16},
        {"model": "qwen3-30b-a3b", "gpu": "rtx-4090", "engine": "llamacpp", "precision": "q4_k_m", "num_gpus": 2, "target_ttft_ms": 500},
    ],
    "max_fit": [{"model": "llama-3.1-8b", "gpu": "h100-sxm"}, {"model": "llama-3.1-8b", "gpu": "h100-sxm", "engine": "vllm"}],
    "runnable_models": [{"gpu": "rtx-4090"}, {"gpu_memory_gb": 48, "num_gpus": 2, "context": 4096}],
    "estimate_server_price": [{"gpu": "a800"}, {"gpu": "h100-sxm", "gpus": 8, "currency": "USD"}],
    "compare_gpus": [{"gpus": ["h100-sxm", "a100-80gb-sxm"]}],
    "check_gpu_claim": [{"proposed": {"gpu": "rtx-4090", "count": 8}, "incumbent": {"gpu": "h100-sxm", "whole_server": True}}],
    "list_gpus": [{}],
    "find_equivalents": [{"gpu": "h100-sxm", "vendors": ["Huawei"]}, {"gpu": "a100-80gb-sxm", "candidates": ["ascend-910b"]}],
    "check_capability": [{"gpu": "l40s", "capability": "fp8"}, {"gpu": "rtx-6000-ada", "capability": "memory", "threshold": 48}],
    "estimate_training_time": [
        {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "h100-sxm", "num_gpus": 8},
        {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "h100-sxm", "deadline_days": 30},  # GPUs derived from the deadline
    ],
    "compute_tco": [{"gpu": "h100-sxm"}, {"server_price": 300_000, "server_max_kw": 10, "cloud_price_per_gpu_hour": 2.5, "currency": "CNY"}],
    "plan_facility": [{"gpu": "h100-sxm"}, {"gpu": "b200", "gpus": 256, "rack_power_kw": 40, "pue": 1.4, "electricity_price": 0.6, "currency": "CNY"},
                      {"gpu": "h20", "servers": 4, "circuit": {"amps": 32, "volts": 380, "three_phase": True, "feeds": 2, "redundant": True}}],
    "size_fabric": [{"servers": 32}, {"servers": 600, "gpus_per_server": 8, "fabric": "infiniband"}],
    "compare_rentals": [{"options": [{"name": "L4", "price_per_gpu_hour": 0.8}, {"name": "A10G", "gpus": 2, "price_per_gpu_hour": 1.01}]}],
    "reserved_or_on_demand": [
        {"reserved_per_gpu_hour": 1.9, "on_demand_per_gpu_hour": 3.0},  # break-even only
        {"reserved_per_gpu_hour": 14, "on_demand_per_gpu_hour": 24.7, "gpu_hours_per_month": 1304, "peak_gpus": 4, "currency": "CNY"},
    ],
    "rental_prices": [{"gpu": "h100-sxm"}, {"gpu": "a100-80gb-sxm", "currency": "CNY", "quoted_price_per_gpu_hour": 9, "gpus": 64, "gpu_hours": 1e5}],
    "diagnose": [{"text": "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"}],
    "check_measured": [{"measured_busbw_gbs": 8, "nodes": 2, "nics_per_node": 4, "nic_gbps": 200}, {"measured_busbw_gbs": 20, "gpu": "a100-80gb-pcie"}],
    "search_knowledge": [{"query": "显存不够怎么办 OOM", "k": 3}],  # first call builds the session's knowledge index
}
# Tools whose dependency loads the embedding model (tests/conftest.py gives each session a fresh index).
SLOW_TOOLS = {"search_knowledge"}
TOOL_PARAMS = [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_TOOLS else name for name in TOOLS]


def nested(depth: int) -> dict:
    value: dict = {"hidden_size": 4096}
    for _ in range(depth):
        value = {"text_config": value}
    return value


MEGABYTE = "x" * 1_000_000
UNICODE_JUNK = "\u202e\ufeff\u200b💥\U000e0041\ud800̸̨͓ 𝕳𝖎 ﷽ \x00\x1b[31m"
# The absurd inputs named by issue 7: sizes, counts and lengths no real job has, non-numbers, wrong types.
ABSURD = [
    1e30, 1e9, -1, -1e30, 0, 5e-324, 1e-300, float("nan"), float("inf"), float("-inf"), 1e308, 10**12, 10**400,
    "nan", "inf", "1e309", "12", "abc", True, None, ["a", 1], {"a": 1}, nested(200), MEGABYTE, UNICODE_JUNK,
]  # fmt: skip

hostile_values = st.one_of(
    st.sampled_from(ABSURD),
    st.floats(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.text(max_size=40),
    st.lists(st.one_of(st.text(max_size=8), st.floats()), max_size=3),
    st.dictionaries(st.text(max_size=6), st.floats(), max_size=3),
)


def fields(name: str) -> list[str]:
    return list(registry.spec(name).request_model.model_fields)


def check_contract(outcome: ToolOutcome, context: object = "") -> None:
    """A bilingual error that is not a contained bug, or a result whose numbers are all finite."""
    if outcome.error is not None:
        error = outcome.error
        assert error["code"] not in BUG_CODES, (context, error)
        assert error["en"].strip(), (context, error)
        assert CJK.search(error["zh"]), (context, error)
        assert len(error["en"]) < 5000 and len(error["zh"]) < 5000, (context, "error echoes huge input")
    else:
        assert outcome.result is not None
        bad = list(non_finite_numbers(outcome.result))
        assert not bad, (context, bad[:3])


def test_every_registered_tool_has_valid_base_calls():
    for name in TOOLS:
        assert name in BASE_CALLS, f"add a minimal valid call for new tool {name!r} to BASE_CALLS"
        for args in BASE_CALLS[name]:
            outcome = registry.call(name, args)
            assert outcome.ok, outcome.error
            check_contract(outcome, name)


@pytest.mark.parametrize("name", TOOL_PARAMS)
def test_absurd_value_in_any_field(name):
    """Each named absurd value in each field, one at a time (deterministic, covers every pair)."""
    for base in BASE_CALLS[name]:
        for field in [*fields(name), "unknown_field"]:
            for value in ABSURD:
                check_contract(registry.call(name, {**base, field: value}), (base, field, repr(value)[:40]))


@pytest.mark.parametrize("name", TOOL_PARAMS)
@settings(max_examples=25, deadline=timedelta(seconds=10), suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_hostile_fields(name, data):
    chosen = data.draw(st.lists(st.sampled_from([*fields(name), "extra"]), min_size=1, max_size=4, unique=True))
    args = {**data.draw(st.sampled_from(BASE_CALLS[name])), **{field: data.draw(hostile_values, label=field) for field in chosen}}
    check_contract(registry.call(name, args), args.keys())


@pytest.mark.parametrize("name", TOOL_PARAMS)
@pytest.mark.parametrize("args", [[1, 2], "estimate", None, 5, nested(200), {"": None}, {"a" * 1000: 1}])
def test_arguments_that_are_not_an_object(name, args):
    outcome = registry.call(name, args)
    assert isinstance(outcome, ToolOutcome)
    check_contract(outcome, args if not isinstance(args, dict) else "dict")


@pytest.mark.parametrize("name", ["rm -rf /", MEGABYTE, ["estimate_memory"], None])
def test_unknown_tool_is_a_bilingual_error(name):
    outcome = registry.call(name, {})
    assert outcome.error["code"] == "unknown_tool" and outcome.error["suggestions"] == sorted(TOOLS)
    check_contract(outcome, name)


# The registry's containment: a tool bug or an overflow becomes an error, not an exception or a NaN.
class Numbers(BaseModel):
    value: float = 1.0
    count: int = 1


class Answer(BaseModel):
    total: float


def overflowing_tool(request: Numbers) -> Answer:
    return Answer(total=request.value * 1e308 * 10)


def crashing_tool(request: Numbers) -> Answer:
    return Answer(total=request.value / 0)


contained = Registry(
    [ToolSpec("overflow", overflowing_tool, "overflows", "溢出"), ToolSpec("crash", crashing_tool, "crashes", "崩溃")], {}
)


@pytest.mark.parametrize(("field", "value"), [("value", float("nan")), ("value", float("inf")), ("value", "-inf"), ("value", "1e999"), ("count", 10**400)])
def test_non_finite_arguments_are_refused_for_every_number_field(field, value):
    outcome = contained.call("overflow", {field: value})
    assert outcome.error["code"] == "invalid_number"
    assert field in outcome.error["en"] and field in outcome.error["zh"]


def test_overflowing_result_becomes_an_error():
    assert contained.call("overflow", {"value": 1e-300}).result == {"total": pytest.approx(1e-300 * 1e308 * 10)}
    outcome = contained.call("overflow", {"value": 1.0})
    assert outcome.error["code"] == "result_out_of_range" and CJK.search(outcome.error["zh"])
    assert not math.isnan(outcome.args["value"])


def test_tool_exception_is_contained(caplog):
    outcome = contained.call("crash", {"value": 1.0})
    assert outcome.error["code"] == "internal_error" and outcome.error["en"] and CJK.search(outcome.error["zh"])
    assert "ZeroDivisionError" in caplog.text  # logged for the maintainers, not shown to the user
    assert "ZeroDivisionError" not in outcome.error["en"]
