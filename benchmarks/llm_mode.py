"""LLM mode without a model: what the first request costs, and how often the grounding check cries wolf.

* Tool schemas: the ``tools`` array every request carries, as compact JSON, and a token estimate
  (characters / 4: a rough rule for English and JSON; Chinese text costs more tokens per character).
* First request: system prompt + schemas + a typical question, the same estimate.
* Grounding false alarms: the offline planner's golden answers only quote tool results, so the
  check should flag none of their figures.
"""

from __future__ import annotations

import json

TOKENS_PER_CHAR = 1 / 4
QUESTION = "我有一个70亿参数模型，该选什么卡？"


def measure_llm_mode() -> list[dict]:
    from advisor.deps import shared_registry
    from advisor.llm.prompt import system_prompt
    from advisor.tool_schema import SCHEMA_BUDGET_CHARS, llm_tools, schema_chars

    registry = shared_registry()
    schemas = schema_chars(registry)
    full = len(
        json.dumps([spec.request_model.model_json_schema() for spec in registry.specs.values()], ensure_ascii=False, separators=(",", ":"))
    )
    tools = llm_tools(registry)
    first = len(system_prompt("zh")) + schemas + len(QUESTION)
    rows = [
        {
            "name": f"LLM tool schemas ({len(tools)} tools; REST keeps all {len(registry.names())})",
            "result": f"{schemas:,} chars ≈ {schemas * TOKENS_PER_CHAR:,.0f} tokens (chars/4); full request models {full:,} chars",
            "target": f"< {SCHEMA_BUDGET_CHARS:,} chars",
            "ok": schemas < SCHEMA_BUDGET_CHARS,
        },
        {
            "name": "LLM first request (system prompt + schemas + question)",
            "result": f"{first:,} chars ≈ {first * TOKENS_PER_CHAR:,.0f} tokens (chars/4)",
            "target": "fits a 4k context with room for the answer",
            "ok": first * TOKENS_PER_CHAR < 3000,
        },
    ]
    return rows + [grounding_false_alarms()]


def grounding_false_alarms() -> dict:
    from advisor.config import Settings
    from advisor.deps import build_advisor
    from advisor.llm.grounding import build_corpus, extract_figures, ungrounded_figures
    from benchmarks.golden import history, load_cases, question
    from knowledge.catalog import load_catalog

    advisor = build_advisor(Settings.from_env({}))
    cards = [gpu.memory_gb for gpu in load_catalog().gpus]
    flagged, figures = [], 0
    for case in load_cases():
        turns = history(case, advisor)
        asked = question(case)
        response = advisor.answer(asked, turns)
        corpus = build_corpus(
            [c.result for c in response.tool_calls if c.result], [asked, *(t.content for t in turns if t.role == "user")], cards
        )
        figures += len(extract_figures(response.answer))
        if ungrounded_figures(response.answer, corpus):
            flagged.append(case["id"])
    return {
        "name": "grounding check on the offline golden answers",
        "result": f"{len(flagged)} of {len(load_cases())} answers flagged ({figures} figures checked)"
        + (f": {', '.join(flagged[:3])}" if flagged else ""),
        "target": "none flagged (they quote only tool results)",
        "ok": not flagged,
    }
