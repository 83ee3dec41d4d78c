"""The Gradio UI without a browser: it builds, its charts match the tool results, its handlers never leak tracebacks."""

from __future__ import annotations

import re

import gradio as gr
import pytest

from advisor.contract import AdvisorResponse, Source, ToolCall
from advisor.deps import shared_registry
from advisor.interfaces import web_forms as forms
from advisor.interfaces import web_handlers as handlers
from advisor.interfaces.charts import MEMORY_GROUPS, memory_figure, tco_figure
from advisor.interfaces.ui_text import TEXT
from advisor.interfaces.web import build_ui
from advisor.interfaces.web_chat import chunks, decorate_answer, respond, summarize_result, to_turns, tool_step
from advisor.interfaces.web_labels import Relabeler
from advisor.labels import OBJECTIVE
from advisor.markdown import sources_section
from advisor.registry import Registry, ToolSpec
from knowledge.catalog import Catalog, load_catalog
from tools.cost.tco import TcoRequest, TcoResult, compute_tco
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryRequest
from tools.recommend import RecommendRequest


@pytest.fixture(scope="module")
def registry() -> Registry:
    return shared_registry()


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


# --- building the UI ---------------------------------------------------------------------------


def test_build_ui_exposes_chat_and_every_calculator(offline_advisor, registry):
    demo = build_ui(offline_advisor, registry)
    assert isinstance(demo, gr.Blocks)
    endpoints = demo.get_api_info()["named_endpoints"]
    assert {"/chat", "/memory", "/serving", "/recommend", "/tco", "/training_time", "/diagnose"} <= set(endpoints)
    chatbots = [b for b in demo.blocks.values() if isinstance(b, gr.Chatbot)]
    assert len(chatbots) == 1 and "copy" in chatbots[0].buttons


def test_every_label_has_two_different_languages():
    for key, (en, zh) in TEXT.items():
        assert en.strip() and zh.strip() and en != zh, key


def test_relabeler_switches_every_registered_attribute():
    labels = Relabeler()
    with gr.Blocks():
        box = labels.add(gr.Textbox(), label="message", placeholder="message_placeholder")
        button = labels.add(gr.Button(), value="send")
    assert labels.components == [box, button]
    en, zh = labels.updates("en"), labels.updates("zh")
    assert en[0]["label"] == "Your question" and zh[0]["label"] == "您的问题"
    assert en[0]["placeholder"] == TEXT["message_placeholder"][0]
    assert (en[1]["value"], zh[1]["value"]) == ("Send", "发送")


# --- charts --------------------------------------------------------------------------------------


def _bar_total(fig) -> float:
    return sum(trace.y[0] for trace in fig.data)


def test_memory_chart_stacks_groups_to_the_estimate_and_draws_the_capacity(catalog):
    estimate = estimate_memory(MemoryRequest(model="llama-3.1-8b", context=8192, batch=16, gpu="H100"), catalog)
    fig = memory_figure(estimate, "en")
    assert fig.layout.barmode == "stack"
    assert all(trace.type == "bar" for trace in fig.data)
    groups = [trace.meta for trace in fig.data]
    assert groups[0] == "weights" and "kv_cache" in groups
    assert groups == [g for g in MEMORY_GROUPS if g in groups]  # stacked bottom-up in the documented order
    assert _bar_total(fig) == pytest.approx(estimate.total_per_gpu_gb, rel=1e-3)
    kv = next(trace for trace in fig.data if trace.meta == "kv_cache")
    assert kv.y[0] >= 16 * 2**30 / 1e9  # 16 GiB of KV cache at 8k × 16 (Llama-3-8B, fp16)
    (line,) = fig.layout.shapes
    assert line.y0 == line.y1 == pytest.approx(estimate.capacity.value)
    assert estimate.capacity.value == pytest.approx(80 * 2**30 / 1e9, rel=0.01)


def test_memory_chart_for_training_shows_gradients_and_optimizer_and_no_line_without_gpu(catalog):
    estimate = estimate_memory(MemoryRequest(model="qwen2.5-7b", mode="training", method="full"), catalog)
    fig = memory_figure(estimate, "zh")
    groups = {trace.meta for trace in fig.data}
    assert {"weights", "gradients", "optimizer", "activations", "overhead"} <= groups
    assert {trace.name for trace in fig.data} >= {TEXT["mem_gradients"][1], TEXT["mem_optimizer"][1]}
    assert not fig.layout.shapes
    assert _bar_total(fig) == pytest.approx(estimate.total_per_gpu_gb, rel=1e-3)


def test_tco_chart_has_both_cumulative_lines_and_marks_break_even(catalog):
    result = compute_tco(TcoRequest(gpu="H100", utilisation_pct=60), catalog)
    assert result.break_even_month is not None
    fig = tco_figure(result, "en")
    own, cloud, marker = fig.data
    assert list(own.x) == list(range(result.horizon_months + 1)) == list(cloud.x)
    assert own.y[0] == pytest.approx(result.capex) and cloud.y[0] == 0
    assert own.y[-1] == pytest.approx(result.series[-1].own_cumulative)
    assert marker.x[0] == result.break_even_month
    assert marker.y[0] == pytest.approx(result.series[result.break_even_month].cloud_cumulative)
    # the marker sits where renting has just overtaken owning
    assert cloud.y[result.break_even_month] >= own.y[result.break_even_month]
    assert cloud.y[result.break_even_month - 1] < own.y[result.break_even_month - 1]


def test_tco_chart_without_break_even_has_no_marker(catalog):
    result = compute_tco(TcoRequest(gpu="H100", utilisation_pct=5), catalog)
    assert result.break_even_month is None
    assert len(tco_figure(result, "zh").data) == 2


# --- calculator handlers -------------------------------------------------------------------------


def test_memory_handler_returns_chart_and_breakdown(registry):
    fig, text = handlers.memory_calc(registry, "zh", "llama-3.1-8b", "inference", "full", "bf16", 1, 4096, "h100-sxm", 1, 1, 0)
    assert fig is not None and fig.data
    assert "放得下" in text and "模型权重" in text and "计算公式" in text


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh", "未找到模型"), ("en", "Did you mean")],
)
def test_memory_handler_unknown_model_is_a_friendly_message(registry, language, expected):
    fig, text = handlers.memory_calc(registry, language, "llama-9", "inference", "full", "bf16", 1, 4096, "", 1, 1, 0)
    assert fig is None
    assert text.startswith("⚠️") and expected in text and "Traceback" not in text


def test_tco_handler_out_of_range_input_is_explained(registry):
    fig, text = handlers.tco_calc(registry, "en", "h100-sxm", 1, 8, 150, 4, "USD", None, None)
    assert fig is None and text.startswith("⚠️") and "Utilisation" in text


def test_tco_handler_returns_chart_and_verdict(registry):
    fig, text = handlers.tco_calc(registry, "zh", "h100-sxm", 1, 8, 60, 4, "USD", None, None)
    assert len(fig.data) == 3 and "回本" in text


def test_training_handler_parses_chinese_tokens_and_reports_bad_ones(registry):
    text = handlers.training_calc(registry, "zh", "llama-3.1-70b", "2万亿", "a800", 16, None, "bf16", None)
    assert "天" in text and "8.466e+23" in text  # 6 × 70.55e9 × 2e12 FLOPs
    bad = handlers.training_calc(registry, "en", "llama-3.1-70b", "lots", "a800", 16, None, "bf16", None)
    assert bad.startswith("⚠️") and "Traceback" not in bad


def test_troubleshoot_handler_ranks_an_oom(registry):
    text = handlers.troubleshoot_calc(registry, "en", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert text.startswith("### 1.") and "memory" in text.lower()
    assert handlers.troubleshoot_calc(registry, "zh", "   ").startswith("⚠️")


def test_catalog_handler_filters_and_rejects_unknown_vendor(registry):
    table, error = handlers.catalog_calc(registry, "en", "AMD", "", 200, False)
    assert error == "" and table["data"]
    assert all(row[1] == "AMD" and row[3] >= 200 for row in table["data"])
    table, error = handlers.catalog_calc(registry, "zh", "Foo", "", 0, False)
    assert table["data"] == [] and "未知厂商" in error


def test_recommend_handler_ranks_options(registry):
    table, summary = handlers.recommend_calc(registry, "en", "qwen2.5-7b", "inference", "bf16", 4096, 1, None, "USD", True, 8)
    assert table["headers"][1] == "Configuration" and table["data"]
    assert all("×" in row[1] for row in table["data"])  # what you buy: "2× RTX 4090 in one server"
    assert all(row[11] is None or row[11] > 0 for row in table["data"]) and any(row[11] for row in table["data"])
    assert [row[0] for row in table["data"]] == list(range(1, len(table["data"]) + 1))
    assert all(row[5] >= row[4] for row in table["data"])  # every option fits: capacity ≥ need
    assert "Qwen2.5-7B" in summary


def test_recommend_handler_passes_the_objective(registry):
    seen = []

    class Recording:
        def run(self, name, args):
            seen.append(args)
            return registry.run(name, args)

    table, _ = handlers.recommend_calc(Recording(), "en", "qwen2.5-7b", "inference", "bf16", 4096, 1, None, "USD", False, 8, "fastest")
    assert seen[-1]["objective"] == "fastest" and table["data"]
    _, error = handlers.recommend_calc(registry, "zh", "qwen2.5-7b", "inference", "bf16", 4096, 1, 0, "CNY", False, 8, "budget")
    assert error.startswith("⚠️") and "优化目标" in error and "objective" not in error  # the control's label, not the field


def test_objective_choices_are_labelled_in_the_pages_language():
    choices = forms.enum_choices(OBJECTIVE, forms.literal_choices(RecommendRequest, "objective"))
    assert ("采购最便宜", "cheapest") in choices("zh") and ("Cheapest purchase", "cheapest") in choices("en")
    assert {value for _, value in choices("en")} == {"cheapest", "fastest", "cloud", "china", "budget", "power", "memory", "value"}


# --- serving speed ---------------------------------------------------------------------------------


def _serving(registry, language="zh", speed=30, ttft=500, batch=16):
    return handlers.serving_calc(registry, language, "llama-3.1-8b", "h100-sxm", 1, 1, "vllm", "bf16", 1024, 256, batch, speed, ttft)


def test_serving_handler_returns_the_itemised_result_and_a_chart(registry):
    fig, text = _serving(registry)
    result = registry.run("estimate_throughput", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "batch": 16, "target_tokens_per_s_per_user": 30,
                                                  "target_ttft_ms": 500})  # fmt: skip
    assert text.startswith("### ") and "计算公式" in text and "单序列生成速度" in text
    assert f"{result.tokens_per_s_per_user_streaming:.1f} token/s" in text and "满足目标的最大并发" in text
    per_user, total, ttft = fig.data
    assert [trace.meta for trace in fig.data] == ["series_per_user", "series_total", "series_ttft"]
    assert per_user.x[0] == 1 and list(per_user.x) == sorted(per_user.x) and 16 in per_user.x
    assert per_user.x[-1] == result.max_batch_fits  # 1 … the most requests that fit
    at_16 = list(per_user.x).index(16)
    assert per_user.y[at_16] == pytest.approx(result.tokens_per_s_per_user_streaming)
    assert total.y[at_16] == pytest.approx(result.output_tokens_per_s_total)
    assert per_user.y[0] > per_user.y[-1] and total.y[0] < total.y[-1]  # batching trades per-user speed for total
    assert per_user.yaxis == "y" and total.yaxis == "y2" and ttft.yaxis == "y3"


def test_serving_chart_draws_each_target_as_a_horizontal_line(registry):
    fig, _ = _serving(registry, speed=30, ttft=500)
    flat = {(shape.yref, shape.y0) for shape in fig.layout.shapes if shape.y0 == shape.y1 and shape.xref.endswith("domain")}
    assert ("y", 30) in flat and ("y3", 500) in flat  # tokens/s target on the per-user axis, TTFT target on the TTFT panel
    fig, _ = _serving(registry, speed=0, ttft=0)
    assert not [shape for shape in fig.layout.shapes if shape.y0 == shape.y1 and shape.xref.endswith("domain")]


def test_serving_chart_is_labelled_in_the_pages_language(registry):
    zh, _ = _serving(registry, "zh")
    en, _ = _serving(registry, "en")
    assert TEXT["serving_chart"][1] in zh.layout.title.text and TEXT["serving_chart"][0] in en.layout.title.text
    assert zh.layout.yaxis.title.text == "单用户 token/s" and zh.layout.xaxis2.title.text == "并发请求数"
    assert [trace.name for trace in zh.data] == ["单用户速度", "总吞吐", "首 token 延迟"]
    assert en.layout.xaxis2.title.text == "Concurrent requests"


def test_serving_handler_explains_what_does_not_fit(registry):
    fig, text = handlers.serving_calc(registry, "en", "llama-3.1-70b", "rtx-4090", 1, 1, "vllm", "bf16", 1024, 256, 8)
    assert fig is None and text.startswith("⚠️") and "Tensor parallel" in text and "tp=" not in text


def test_curve_batches_cover_one_to_the_maximum():
    assert handlers.curve_batches(10, 4) == list(range(1, 11))
    many = handlers.curve_batches(5000, 3)
    assert many[0] == 1 and many[-1] == handlers.CURVE_MAX_BATCH and 3 in many and len(many) <= handlers.CURVE_POINTS + 1


def test_a_failing_tool_shows_a_generic_message_not_a_traceback():
    def broken(request: TcoRequest, catalog: Catalog) -> TcoResult:
        raise RuntimeError("internal detail that must not reach the page")

    registry = Registry([ToolSpec("compute_tco", broken, "x", "x")], {Catalog: load_catalog})
    fig, text = handlers.tco_calc(registry, "en", "h100-sxm", 1, 8, 60, 4, "USD", None, None)
    assert fig is None and text == "⚠️ " + TEXT["unexpected_error"][0]


# --- chat ----------------------------------------------------------------------------------------


def test_respond_streams_thinking_then_answer_and_keeps_the_conversation(offline_advisor):
    steps = list(respond(offline_advisor, "我有一个70亿参数模型，该选什么卡？", [], [], "zh"))
    first_messages, _, _ = steps[0]
    assert first_messages[-1].metadata["status"] == "pending"
    messages, turns, box = steps[-1]
    assert box == ""
    tool_titles = [m.metadata["title"] for m in messages if m.metadata.get("title")]
    assert "🔧 recommend_gpus" in tool_titles
    answer = messages[-1].content
    assert "GB" in answer and re.search(r"RTX|A100|H100|L40|4090|A10|L20", answer)
    assert [t["role"] for t in turns] == ["user", "assistant"]
    assert len(steps) > 2  # tool steps and the answer arrive progressively


def test_respond_sends_earlier_turns_as_history(offline_advisor):
    calls = []

    class Recording:
        def answer(self, message, history):
            calls.append(history)
            return offline_advisor.answer(message, history)

    *_, (messages, turns, _) = respond(Recording(), "那用 H100 呢？", [], [{"role": "user", "content": "7B 模型推理"}, {"role": "assistant", "content": "…"}], "zh")
    assert [t.content for t in calls[0]] == ["7B 模型推理", "…"]
    assert len(turns) == 4


def test_respond_rejects_an_empty_message_without_calling_the_advisor():
    (messages, turns, _), = list(respond(None, "   ", [], [], "en"))
    assert messages[-1].content == TEXT["empty_message"][0] and turns == []


def test_tool_step_shows_arguments_and_a_summary(registry):
    outcome = registry.call("compute_tco", {"gpu": "H100", "utilisation_pct": 60})
    step = tool_step(ToolCall(**outcome.model_dump()), "en")
    assert step.metadata["title"] == "🔧 compute_tco"
    assert '"utilisation_pct": 60' in step.content and "break-even in month" in step.content and "break_even_month" not in step.content
    failed = registry.call("compute_tco", {"gpu": "H100", "utilisation_pct": 150})
    step = tool_step(ToolCall(**failed.model_dump()), "zh")
    assert "错误" in step.content and "利用率" in step.content


def test_a_result_whose_gpus_is_a_count_summarises_without_rows():
    # a cost result counts its GPUs ("gpus": 8) where a recommendation lists them; the chat step must not iterate a count
    lines = summarize_result({"gpus": 8, "break_even_month": 12}, "en")
    assert lines == ["break-even in month 12"]
    assert summarize_result({"gpus": [{"name": "H100 SXM"}]}, "en") == ["H100 SXM"]


def test_answer_shows_the_notice_and_only_the_answers_own_sources_section():
    answer = "Use an H100.\n\n**Sources**\n- [Out of memory · Fixes](https://example.org/a)"
    response = AdvisorResponse(
        answer=answer, language="en", mode="offline", notice="LLM timed out",
        sources=[Source(doc_id="oom", title="Out of memory", section="Fixes", urls=["https://example.org/a", "javascript:x"])],
    )  # fmt: skip
    text = decorate_answer(response)
    assert text == f"> ⚠️ LLM timed out\n\n{answer}"  # no second list of the same sources
    assert text.count("Out of memory") == 1 and "javascript" not in text


def test_sources_section_is_one_list_of_markdown_links():
    sources = [
        Source(doc_id="oom", title="Out of memory", section="Fixes", urls=["https://example.org/a (b)"]),
        Source(doc_id="gpu:a100", title="A100", urls=["NVIDIA A100 datasheet"]),
    ]
    text = sources_section(sources, "zh")
    assert text.splitlines() == ["**参考资料**", "- [Out of memory · Fixes](https://example.org/a%20%28b%29)", "- A100 (NVIDIA A100 datasheet)"]
    assert sources_section([], "en") == ""


def test_chunks_grow_to_the_whole_text_at_word_ends():
    text = "word " * 100 + "\n| a | b |\n" * 5
    parts = list(chunks(text, 50))
    assert parts[-1] == text and len(parts) > 5
    assert all(len(a) < len(b) for a, b in zip(parts, parts[1:], strict=False))
    assert all(p.endswith((" ", "\n")) for p in parts[:-1])


def test_history_is_bounded():
    turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": str(i)} for i in range(50)]
    assert [t.content for t in to_turns(turns)][-1] == "49" and len(to_turns(turns)) == 20
