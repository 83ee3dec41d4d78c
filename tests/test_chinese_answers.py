"""Issue #14: a Chinese answer is entirely Chinese.

Every tool's result is rendered the way people see it (the calculator renderers in ``web_results``, the
charts, the form choices and the error messages) in Chinese, and each rendering must contain no English
word outside the allow-list in ``tests/chinese_text.py``. The English renderings must contain no Chinese.
No request field name ('price_per_gpu_hour') may appear in either.
"""

from __future__ import annotations

import re

import pytest

from advisor.deps import shared_registry
from advisor.interfaces import web_forms as forms
from advisor.interfaces.charts import memory_figure, serving_figure, tco_figure
from advisor.interfaces.ui_text import TEXT
from advisor.interfaces.web_handlers import error_message
from advisor.interfaces.web_results import (
    CATALOG_COLUMNS,
    catalog_rows,
    diagnosis_markdown,
    memory_markdown,
    recommendation_table,
    serving_markdown,
    tco_markdown,
    training_markdown,
)
from advisor.labels import CURRENCY, ENGINE, METHOD, MODE, OBJECTIVE, TASK, ZERO_STAGE
from knowledge.bilingual import AdvisorError
from tests.chinese_text import english_words
from tools.cost.tco import TcoRequest
from tools.cost.training_time import TrainingTimeRequest
from tools.memory.schema import MemoryRequest
from tools.recommend import RecommendRequest
from tools.serving.schema import ThroughputRequest
from tools.troubleshoot.rulebook import load_rulebook

CJK = re.compile(r"[\u4e00-\u9fff]")
FIELDS = {name for model in (MemoryRequest, RecommendRequest, TcoRequest, TrainingTimeRequest, ThroughputRequest)
          for name in model.model_fields if "_" in name}  # fmt: skip
FIELD_NAME = re.compile(r"\b(" + "|".join(sorted(FIELDS, key=len, reverse=True)) + r")\b")

MEMORY_CASES = {
    "inference default": {"model": "llama-3.1-8b", "gpu": "H100"},
    "generic size": {"model": "7B", "gpu": "RTX 4090"},
    "vllm": {"model": "qwen2.5-72b", "precision": "awq-int4", "engine": "vllm", "gpu": "A100", "batch": 8, "kv_precision": "int8"},
    "legacy eager": {"model": "qwen-7b", "engine": "hf_legacy", "flash_attention": False, "context": 2048, "num_gpus": 2, "tp": 2},
    "sliding window": {"model": "gemma-2-9b", "precision": "q4_k_m", "context": 8192},
    "mla fp8 tp8": {"model": "deepseek-v3", "precision": "fp8", "tp": 8, "gpu": "H200"},
    "fp8 mlp": {"model": "llama-3.1-405b", "precision": "fp8-mlp", "tp": 8, "gpu": "H100"},
    "full zero3": {"model": "llama-3.1-70b", "mode": "training", "zero_stage": 3, "num_gpus": 16, "gpu": "H100"},
    "lora": {"model": "qwen2.5-7b", "mode": "training", "method": "lora", "lora_targets": ["attention"], "gpu": "RTX 4090"},
    "qlora": {"model": "llama-3.1-70b", "mode": "training", "method": "qlora", "gpu": "A100"},
    "freeze selective": {"model": "llama-3.1-8b", "mode": "training", "method": "freeze", "recompute": "selective", "flash_attention": False},
    "fsdp offload": {"model": "llama-3.1-70b", "mode": "training", "fsdp": "FULL_SHARD", "offload": "optimizer_and_params", "num_gpus": 8},
    "zero2 offload": {"model": "llama-3.1-8b", "mode": "training", "zero_stage": 2, "offload": "optimizer", "num_gpus": 4},
    "pipeline": {"model": "llama-3.1-70b", "mode": "training", "tp": 2, "pp": 2, "num_gpus": 8, "zero_stage": 1, "grad_accumulation": 4},
    "paged 8-bit in backward": {"model": "llama-3.1-8b", "mode": "training", "optimizer": "adamw_8bit_paged", "optimizer_in_backward": True,
                                "activation_offload": True, "chunked_loss": True},
    "does not fit": {"model": "llama-3.1-70b", "mode": "training", "gpu": "RTX 4090"},
}  # fmt: skip
RECOMMEND_CASES = {
    "inference": {"model": "qwen2.5-7b"},
    "qlora": {"model": "llama-3.1-70b", "task": "qlora"},
    "full fine-tune, China": {"model": "llama-3.1-70b", "task": "full_finetune", "region": "cn", "currency": "CNY"},
    "pretrain over budget": {"model": "llama-3.1-70b", "task": "pretrain", "budget": 10000},
    "nothing fits": {"model": "llama-3.1-405b", "task": "full_finetune", "max_gpus": 4},
}
TCO_CASES = {
    "usd": {"gpu": "H100", "utilisation_pct": 60},
    "cny, colo with power": {"gpu": "A800", "currency": "CNY", "servers": 4, "server_price": 1_500_000, "cloud_price_per_gpu_hour": 12,
                             "colo_includes_power": True, "staff_cost_per_month": 20000},
    "never pays back": {"gpu": "RTX 4090", "gpus_per_server": 4, "utilisation_pct": 5, "cloud_price_per_gpu_hour": 0.3},
}
TRAINING_CASES = {
    "default": {"model": "llama-3.1-70b", "tokens": "2T", "gpu": "A800", "num_gpus": 16},
    "fp8 with price": {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "H100", "num_gpus": 64, "precision": "fp8", "price_per_gpu_hour": 2},
    "deadline": {"model": "qwen2.5-72b", "tokens": "1.5万亿", "gpu": "H100", "deadline_days": 30, "recompute": "full"},
    "moe, high mfu, late": {"model": "deepseek-v3", "tokens": "14.8T", "gpu": "H800", "num_gpus": 2048, "mfu": 0.7, "deadline_days": 10},
    "no price, consumer": {"params_b": 7, "tokens": 1e11, "gpu": "L40S", "num_gpus": 8},
}
SERVING_CASES = {
    "one gpu with targets": {"model": "llama-3.1-8b", "gpu": "H100", "batch": 16, "target_tokens_per_s_per_user": 30, "target_ttft_ms": 500},
    "tensor parallel awq": {"model": "qwen2.5-72b", "gpu": "A100", "num_gpus": 4, "precision": "awq-int4", "batch": 64},
    "layer split gguf": {"model": "qwen2.5-32b", "gpu": "RTX 4090", "num_gpus": 2, "engine": "llamacpp", "precision": "q4_k_m"},
    "replicas, capacity bound": {"model": "llama-3.1-8b", "gpu": "L40S", "num_gpus": 2, "tp": 1, "batch": 2000, "prompt_tokens": 8000},
    "moe fp8": {"model": "deepseek-v3", "gpu": "H200", "num_gpus": 8, "precision": "fp8", "batch": 32},
}
LOGS = {
    "oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
    "of which 1.20 GiB is free. Process 1 has 77.9 GiB memory in use.",
    "xid": "[ 1234.5] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
    "nccl": "NCCL WARN Timeout waiting for connection\ntorch.distributed.DistBackendError: NCCL error: unhandled system error",
    "thermal": "训练时 GPU 利用率只有 30%，nvidia-smi 显示 HW Slowdown: Active，温度 92C",
    "nothing": "一切正常",
}


@pytest.fixture(scope="module")
def registry():
    return shared_registry()


def check_chinese(text: str, where: str) -> None:
    assert not english_words(text), f"{where}: English words {english_words(text)} in\n{text}"
    assert not FIELD_NAME.search(text), f"{where}: field name {FIELD_NAME.search(text).group(0)} in\n{text}"


def check_english(text: str, where: str) -> None:
    assert not CJK.search(text), f"{where}: Chinese in the English rendering\n{text}"
    assert not FIELD_NAME.search(text), f"{where}: field name {FIELD_NAME.search(text).group(0)} in\n{text}"


def figure_text(figure) -> str:
    layout = figure.layout
    parts = [layout.title.text or "", layout.xaxis.title.text or "", layout.yaxis.title.text or ""]
    parts += [a.text for a in layout.annotations or ()]
    for trace in figure.data:
        parts += [trace.name or "", trace.hovertemplate or "", *(trace.text or ()), *(trace.customdata or ())]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("case", MEMORY_CASES)
def test_memory_estimate_renders_entirely_in_chinese(registry, case):
    result = registry.run("estimate_memory", MEMORY_CASES[case])
    check_chinese(memory_markdown(result, "zh") + "\n" + figure_text(memory_figure(result, "zh")), case)
    check_english(memory_markdown(result, "en") + "\n" + figure_text(memory_figure(result, "en")), case)
    assert all(item.formula_zh and item.formula_zh != item.formula for item in result.items)


def test_max_fit_explains_itself_in_chinese(registry):
    for args in ({"model": "llama-3.1-8b", "gpu": "RTX 4090"}, {"model": "llama-3.1-70b", "gpu": "RTX 4090", "mode": "training"}):
        result = registry.run("max_fit", args)
        check_chinese("\n".join(t.zh for t in [*result.notes, result.limit_reason] if t), str(args))


@pytest.mark.parametrize("case", RECOMMEND_CASES)
def test_recommendation_renders_entirely_in_chinese(registry, case):
    result = registry.run("recommend_gpus", RECOMMEND_CASES[case])
    for language, check in (("zh", check_chinese), ("en", check_english)):
        headers, rows, summary = recommendation_table(result, language)
        words = [str(cell) for row in rows for cell in row if isinstance(cell, str) and cell not in {o.gpu_name for o in result.options}]
        check("\n".join([*headers, *words, summary]), case)
    if result.options:
        assert result.options[0].plan_label.zh != result.options[0].plan or result.options[0].plan.startswith("TP")


@pytest.mark.parametrize("case", SERVING_CASES)
def test_serving_speed_renders_entirely_in_chinese(registry, case):
    args = SERVING_CASES[case]
    result = registry.run("estimate_throughput", args)
    curve = [registry.run("estimate_throughput", {**args, "batch": b}) for b in (1, 2, 4)]
    targets = args.get("target_tokens_per_s_per_user"), args.get("target_ttft_ms")
    check_chinese(serving_markdown(result, "zh") + "\n" + figure_text(serving_figure(curve, result, "zh", *targets)), case)
    check_english(serving_markdown(result, "en") + "\n" + figure_text(serving_figure(curve, result, "en", *targets)), case)


@pytest.mark.parametrize("case", TCO_CASES)
def test_tco_renders_entirely_in_chinese(registry, case):
    result = registry.run("compute_tco", TCO_CASES[case])
    check_chinese(tco_markdown(result, "zh") + "\n" + figure_text(tco_figure(result, "zh")), case)
    check_english(tco_markdown(result, "en") + "\n" + figure_text(tco_figure(result, "en")), case)


@pytest.mark.parametrize("case", TRAINING_CASES)
def test_training_time_renders_entirely_in_chinese(registry, case):
    result = registry.run("estimate_training_time", TRAINING_CASES[case])
    check_chinese(training_markdown(result, "zh"), case)
    check_english(training_markdown(result, "en"), case)
    assert result.gpu_id not in training_markdown(result, "zh")  # the heading names the GPU, not its id


@pytest.mark.parametrize("case", LOGS)
def test_diagnosis_renders_entirely_in_chinese(registry, case):
    result = registry.run("diagnose", {"text": LOGS[case], "language": "zh"})
    text = diagnosis_markdown(result, "zh")
    # quoted log lines are the user's own text, and `commands` are typed as they are
    shown = "\n".join(line for line in text.splitlines() if not line.startswith(">"))
    check_chinese(re.sub(r"`[^`]*`", " ", shown), case)


def test_every_troubleshooting_rule_reads_in_chinese():
    """Every title, cause and action a diagnosis can show, not only the ones the logs above trigger."""
    for rule in load_rulebook().rules:
        texts = [rule.title.zh, *(c.zh for c in rule.causes), *(a.zh for a in rule.actions)]
        check_chinese(re.sub(r"`[^`]*`", " ", "\n".join(texts)), rule.id)


def test_gpu_catalog_rows_are_in_chinese(registry):
    gpus = registry.run("list_gpus", {}).gpus
    rows = catalog_rows(gpus, "zh")
    labels = {cell for row in rows for cell in (row[2], row[8])}  # segment and China status; names and vendors are names
    check_chinese("\n".join([*CATALOG_COLUMNS["zh"], *labels]), "catalog")


def test_every_form_choice_and_label_is_in_the_pages_language():
    tables = [forms.enum_choices(MODE, list(MODE)), forms.enum_choices(METHOD, list(METHOD)), forms.enum_choices(TASK, list(TASK)),
              forms.enum_choices(ZERO_STAGE, list(ZERO_STAGE)), forms.enum_choices(CURRENCY, list(CURRENCY)),
              forms.enum_choices(OBJECTIVE, list(OBJECTIVE)), forms.enum_choices(ENGINE, list(ENGINE)),
              forms.precision_choices, forms.segment_choices]  # fmt: skip
    for choices in tables:
        check_chinese("\n".join(label for label, _ in choices("zh")), "choices")
        check_english("\n".join(label for label, _ in choices("en")), "choices")
    check_chinese("\n".join(zh for key, (_, zh) in TEXT.items() if key != "language"), "ui_text")  # the toggle names both


def test_every_choice_a_tool_accepts_has_a_label():
    assert set(forms.literal_choices(MemoryRequest, "mode")) == set(MODE)
    assert set(forms.literal_choices(MemoryRequest, "method")) == set(METHOD)
    assert set(forms.literal_choices(RecommendRequest, "task")) == set(TASK)
    assert set(forms.literal_choices(RecommendRequest, "objective")) == set(OBJECTIVE)
    assert set(forms.literal_choices(ThroughputRequest, "engine")) == set(ENGINE)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("estimate_training_time", {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "H100"}),
        ("estimate_training_time", {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "A100", "precision": "fp8", "num_gpus": 8}),
        ("estimate_training_time", {"tokens": 1e12, "gpu": "H100", "num_gpus": 8}),
        ("compute_tco", {"servers": 2}),
        ("compute_tco", {"gpu": "H100", "utilisation_pct": 50, "hours_per_month": 300}),
        ("estimate_memory", {"model": "llama-3.1-8b", "mode": "training", "method": "qlora", "precision": "bf16"}),
        ("estimate_memory", {"model": "llama-3.1-8b", "mode": "training", "method": "lora", "precision": "int4"}),
        ("estimate_memory", {"model": "llama-3.1-8b", "mode": "training", "zero_stage": 3}),
        ("estimate_memory", {"model": "llama-3.1-8b", "zero_stage": 2}),
    ],
)
def test_errors_name_form_controls_not_fields(registry, tool, args):
    with pytest.raises(AdvisorError) as caught:
        registry.run(tool, args)
    check_chinese(error_message(caught.value, "zh"), f"{tool} {args}")
    check_english(error_message(caught.value, "en"), f"{tool} {args}")
