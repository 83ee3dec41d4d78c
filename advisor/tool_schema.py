"""The tools as a language model sees them: lean schemas, short descriptions, ``max_fit`` folded in.

REST, the CLI and the calculators keep every field of the request models. A model needs far
fewer: each schema is sent with every request, so 32 near-identical fields of ``estimate_memory``
and ``max_fit`` cost ~3.5k tokens before any answer. Here each tool keeps the fields a model
needs, with one-line descriptions; a model may still send any other field of the request model
(the registry validates against the full model and refuses names it does not have).

A tool missing from ``LLM_FIELDS`` is shown with all its fields and descriptions cut to their
first sentence, so a newly registered tool works at once; list it here to make it lean.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from advisor.registry import Registry, ToolOutcome, ToolSpec
from knowledge.sentences import first_sentence
from knowledge.wording import Wording

Field = str | dict[str, Any]  # a short description, or the whole property schema
TEXT = Wording(Path(__file__).with_name("tool_schema_text.yaml"))
LIMITS_FIELD = "limits"
# Tools the model does not see, with the tool it reaches the same answer through while that one is registered.
HIDDEN_TOOLS = {
    "max_fit": "estimate_memory",  # estimate_memory(limits=true)
    "check_capability": "compare_gpus",
    "check_gpu_claim": "compare_gpus",  # offline claim answers call it; the spec rows carry the same figures for the model  # the spec rows carry the same catalog fields (fp8_tflops null = no FP8); the schema budget stays
    "rental_prices": "compare_rentals",
    "reserved_or_on_demand": "compare_rentals",  # offline reservation answers call it; a model prices each way with compare_rentals
    "find_equivalents": "compare_gpus",  # a counterpart's figures are its spec rows side by side; the schema budget stays
    "estimate_server_price": "recommend_gpus",  # recommend_gpus prices whole configurations; offline price answers use it directly  # a model prices rent with compare_rentals and compute_tco; offline answers use it directly
}
MAX_DESCRIPTION_CHARS = 90

_MODEL = "Model name or size, e.g. 'qwen2.5-7b', '7B'"
_GPU = "GPU, e.g. 'H100', 'RTX 4090', '910B'"
_CURRENCY = {"type": "string", "enum": ["USD", "CNY"], "default": "USD"}
_PRECISION = "Weights: bf16 (default), fp8, int8, int4, awq-int4, nf4, q4_k_m…"

LLM_FIELDS: dict[str, dict[str, Field]] = {
    "recommend_gpus": {
        "model": _MODEL,
        "task": "",
        "precision": _PRECISION,
        "context": "Tokens per sequence",
        "batch": "Concurrent sequences, or micro-batch when training",
        "budget": "Purchase budget in `currency`",
        "currency": _CURRENCY,
        "region": "'cn': only GPUs buyable new in mainland China",
        "gpus": {"type": "array", "items": {"type": "string"}, "description": "Only these GPUs"},
        "objective": "",
        "concurrency": "Concurrent users",
        "tokens_per_s_per_user": "Target tok/s per user",
    },
    "estimate_memory": {
        "model": _MODEL,
        "mode": "",
        "precision": _PRECISION,
        "kv_precision": "KV cache: bf16 (default), fp8, int8, int4",
        "batch": "Concurrent sequences, or micro-batch per GPU when training",
        "context": "Tokens per sequence (prompt + output)",
        "engine": "vllm also reports KV-cache capacity",
        "method": "Training method",
        "zero_stage": "DeepSpeed ZeRO stage 0-3",
        "num_gpus": "GPUs in total (default tp)",
        "tp": "Tensor-parallel degree",
        "gpu": _GPU + " to check the fit",
        LIMITS_FIELD: {"type": "boolean", "default": False, "description": "Also find the largest batch and context that fit `gpu`"},
    },
    "estimate_throughput": {
        "model": _MODEL,
        "precision": _PRECISION,
        "gpu": _GPU,
        "num_gpus": "GPUs in total (extra GPUs run replicas)",
        "engine": "",
        "batch": "Concurrent sequences in total",
        "prompt_tokens": "Input tokens per request",
        "output_tokens": "Output tokens per request",
    },
    "runnable_models": {"gpu": _GPU, "gpu_memory_gb": "GB per GPU if unnamed", "num_gpus": ""},
    "compare_gpus": {"gpus": {"type": "array", "items": {"type": "string"}, "description": "GPU names, e.g. ['H100', '4090']"}},
    "check_capability": {"gpu": _GPU, "capability": "fp4|fp8|bf16|mig|int8|sparsity|nvlink|pcie_gen|memory|bandwidth|tdp|form_factor", "threshold": "GB or GB/s asked"},
    "list_gpus": {
        "vendor": "NVIDIA, AMD, Huawei…",
        "segment": "",
        "min_memory_gb": "At least this much memory (GB)",
        "china_mainland": "Only GPUs buyable new in mainland China",
        "training": "Exclude inference-only devices",
    },
    "estimate_training_time": {
        "model": {"type": "string", "description": _MODEL},
        "params_b": "Parameters (billions) per token; ACTIVE count for MoE",
        "tokens": {"type": ["number", "string"], "description": TEXT.entry("hints.training_tokens")},
        "gpu": _GPU,
        "num_gpus": "GPUs in the job; give this, deadline_days or both",
        "deadline_days": "Finish within this many days (returns the GPUs needed)",
        "precision": "Matmul precision",
        "mfu": "Measured MFU, 0-1 (default from a table)",
        "goodput": "Booked time that trains, 0.1-1 (0.9: restarts)",
        "price_per_gpu_hour": "Price per GPU-hour in `currency`",
        "currency": _CURRENCY,
    },
    "compute_tco": {
        "gpu": _GPU,
        "gpus_per_server": "GPUs per server",
        "servers": "Servers to buy",
        "server_price": "Price of one server in `currency`",
        "lifetime_years": "Years of use (default 4)",
        "utilisation_pct": "Busy % of hours (default 70)",
        "electricity_price": "Per kWh in `currency`",
        "cloud_price_per_gpu_hour": "Per GPU-hour in `currency`",
        "cloud_discount_pct": "Discount off the cloud price, %",
        "cloud_committed": "Reserved: billed every hour",
        "cloud_monthly_bill": "Monthly bill, all GPUs",
        "currency": _CURRENCY,
        "claimed_payback_months": "Quoted payback to check (not the life)",
    },
    "compare_rentals": {
        "options": {
            "type": "array", "description": "2-8 rentals",
            "items": {"type": "object", "required": ["name", "price_per_gpu_hour"],
                      "properties": {"name": {"type": "string"}, "gpus": {"type": "integer"}, "price_per_gpu_hour": {"type": "number"}}},
        },
        "months": "Default 12",
        "utilisation_pct": "Rented share of hours, % (default 100)",
        "discount_pct": "% off every price",
        "currency": _CURRENCY,
    },  # fmt: skip
    "plan_facility": {"gpu": "", "servers": "", "gpus": "", "rack_power_kw": "", "pue": "", "electricity_price": "Per kWh", "currency": _CURRENCY},
    "size_fabric": {"servers": "Servers"},
    "search_knowledge": {"query": TEXT.entry("hints.search_query"), "k": "Documents to return"},
    "diagnose": {"text": "Symptom or pasted log (traceback, dmesg, nvidia-smi, NCCL)", "model": "Model being trained/served"},
    "check_measured": {
        "measured_busbw_gbs": "busbw, GB/s", "nodes": "Nodes", "nics_per_node": "NICs per node", "nic_gbps": "Gb/s per NIC",
        "gpu": _GPU,
    },
}
DESCRIPTIONS = {tool: " / ".join(TEXT.pair(f"descriptions.{tool}")) for tool in TEXT.entry("descriptions")}


def llm_tool_names(registry: Registry) -> list[str]:
    return [name for name in registry.names() if HIDDEN_TOOLS.get(name) not in registry.specs]


def llm_description(spec: ToolSpec) -> str:
    return DESCRIPTIONS.get(spec.name) or spec.description()


def llm_parameters(spec: ToolSpec) -> dict[str, Any]:
    """The JSON schema the model sees for ``spec``: only the listed fields, short descriptions, no titles."""
    full = spec.request_model.model_json_schema()
    props = full.get("properties", {})
    chosen = LLM_FIELDS.get(spec.name) or {name: None for name in props}
    properties: dict[str, Any] = {}
    for name, short in chosen.items():
        if isinstance(short, dict):
            properties[name] = short
        elif name in props:
            properties[name] = _lean_property(props[name], short)
    required = [name for name in full.get("required", []) if name in properties]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _lean_property(prop: dict[str, Any], short: str | None) -> dict[str, Any]:
    options = [o for o in prop.get("anyOf", []) if o.get("type") != "null"]
    base = dict(options[0]) if len(options) == 1 else {k: v for k, v in prop.items() if k == "anyOf"} or dict(prop)
    lean = {k: v for k, v in base.items() if k in ("type", "enum", "items", "anyOf")}
    if isinstance(lean.get("items"), dict):
        lean["items"] = {k: v for k, v in lean["items"].items() if k in ("type", "enum")}
    default = prop.get("default")
    if default is not None and not isinstance(default, (list, dict)):
        lean["default"] = default
    description = _first_sentence(prop.get("description", "")) if short is None else short
    if description:
        lean["description"] = description
    return lean


def _first_sentence(text: str) -> str:
    head = first_sentence(text).rstrip(".")  # "…, e.g. 'H100'. More" keeps its example
    return head if len(head) <= MAX_DESCRIPTION_CHARS else head[: MAX_DESCRIPTION_CHARS - 1] + "…"


def llm_tools(registry: Registry) -> list[dict[str, Any]]:
    """Every LLM-facing tool in the OpenAI ``tools`` format, as sent with each request."""
    return [
        {
            "type": "function",
            "function": {"name": name, "description": llm_description(spec), "parameters": llm_parameters(spec)},
        }
        for name, spec in ((n, registry.spec(n)) for n in llm_tool_names(registry))
    ]


SCHEMA_BUDGET_CHARS = 10800  # thirteen tools for the model, about 3k tokens: room in an 8k-token local context


def schema_chars(registry: Registry) -> int:
    """Characters of the ``tools`` array as compact JSON (what the HTTP body carries)."""
    return len(json.dumps(llm_tools(registry), ensure_ascii=False, separators=(",", ":")))


def run_llm_tool(registry: Registry, name: str, args: Any) -> ToolOutcome:
    """Call a tool for the model; ``estimate_memory(limits=true)`` also runs ``max_fit`` and nests its result."""
    if name != "estimate_memory" or not isinstance(args, Mapping) or LIMITS_FIELD not in args:
        return registry.call(name, args)
    rest = {k: v for k, v in args.items() if k != LIMITS_FIELD}
    wanted = args[LIMITS_FIELD] in (True, "true", "True", 1)
    outcome = registry.call(name, rest)
    recorded = {**outcome.args, LIMITS_FIELD: wanted}
    if not (wanted and outcome.ok and "max_fit" in registry.specs):
        return outcome.model_copy(update={"args": recorded})
    if not rest.get("gpu"):
        limits: dict[str, Any] = {"error": {"code": "missing_gpu", **TEXT.entry("errors.missing_gpu")}}
    else:
        found = registry.call("max_fit", rest)
        limits = found.result if found.ok else {"error": found.error}
    return outcome.model_copy(update={"args": recorded, "result": {**(outcome.result or {}), LIMITS_FIELD: limits}})
