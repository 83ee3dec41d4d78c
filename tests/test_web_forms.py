"""The calculator forms cannot be put in a state the tools reject: the rules, and the tools agreeing with them."""

from __future__ import annotations

import itertools

import gradio as gr
import pytest

from advisor.deps import shared_registry
from advisor.interfaces import web_forms as forms
from advisor.interfaces.web_handlers import error_message, memory_calc, recommend_calc
from advisor.interfaces.web_labels import Relabeler
from advisor.labels import METHOD
from knowledge.catalog import load_catalog
from tools.memory.setup import QLORA_BASES


def test_choosing_qlora_switches_the_precision_to_nf4_and_back():
    chosen = forms.memory_form("training", "qlora", "bf16", 1, 1, 0, changed="method")
    assert chosen.precision == "nf4" and chosen.method == "qlora"
    back = forms.memory_form("training", "lora", chosen.precision, 1, 1, 0, changed="method")
    assert back.precision == "bf16"


def test_full_fine_tune_does_not_keep_a_quantised_precision():
    assert forms.memory_form("training", "full", "int4", 1, 1, 0, changed="method").precision == "bf16"
    assert forms.memory_form("training", "full", "awq-int4", 1, 1, 0, changed="mode").precision == "bf16"
    # picking a QLoRA base while fine-tuning means QLoRA; a format nobody fine-tunes on snaps back
    assert forms.memory_form("training", "full", "nf4", 1, 1, 0, changed="precision").method == "qlora"
    assert forms.memory_form("training", "lora", "q4_k_m", 1, 1, 0, changed="precision").precision == "bf16"
    assert forms.memory_form("training", "qlora", "bf16", 1, 1, 0, changed="precision").method == "lora"


def test_inference_leaves_precision_alone_and_greys_out_training_settings():
    form = forms.memory_form("inference", "qlora", "int4", 1, 1, 3, changed="mode")
    assert form.precision == "int4" and not form.training and form.zero_stage == 0 and not form.zero_allowed


def test_tensor_parallelism_always_divides_the_gpu_count():
    assert forms.memory_form("inference", "full", "bf16", 1, 4, 0, changed="tp").num_gpus == 4
    assert forms.memory_form("inference", "full", "bf16", 6, 4, 0, changed="tp").num_gpus == 8
    assert forms.memory_form("inference", "full", "bf16", 6, 4, 0, changed="num_gpus").tp == 2
    assert forms.memory_form("inference", "full", "bf16", None, None, None, changed="tp").num_gpus == 1


def test_zero_needs_more_than_one_data_parallel_gpu():
    assert forms.memory_form("training", "full", "bf16", 1, 1, 3, changed="num_gpus").zero_stage == 0
    assert forms.memory_form("training", "full", "bf16", 8, 8, 3, changed="tp").zero_stage == 0
    form = forms.memory_form("training", "full", "bf16", 8, 1, 3, changed="num_gpus")
    assert form.zero_stage == 3 and form.zero_allowed


MODES, METHODS = ["inference", "training"], list(METHOD)
PRECISIONS = ["bf16", "fp8", "int4", "awq-int4", "nf4", "bnb-int8", "q4_k_m"]
CHANGES = ["mode", "method", "precision", "num_gpus", "tp"]


@pytest.mark.parametrize("mode", MODES)
def test_whatever_is_picked_the_memory_form_is_valid_for_the_estimator(mode):
    registry = shared_registry()
    for method, precision, gpus, tp, zero, changed in itertools.product(METHODS, PRECISIONS, [1, 8], [1, 2], [0, 3], CHANGES):
        form = forms.memory_form(mode, method, precision, gpus, tp, zero, changed)
        args = {"model": "llama-3.1-8b", "mode": mode, "precision": form.precision, "num_gpus": form.num_gpus, "tp": form.tp}
        if form.training:
            args |= {"method": form.method, "zero_stage": form.zero_stage}
        registry.run("estimate_memory", args)  # raises if the form allowed a contradiction


@pytest.mark.parametrize("task", ["inference", "lora", "qlora", "full_finetune", "pretrain"])
def test_whatever_is_picked_the_recommend_form_is_valid(task):
    registry = shared_registry()
    for precision, changed in itertools.product(PRECISIONS, ["task", "precision"]):
        form = forms.recommend_form(task, precision, changed)
        assert form.precision_applies == (task in ("inference", "qlora"))
        if task == "qlora":
            assert form.precision in QLORA_BASES
        registry.run("recommend_gpus", {"model": "qwen2.5-7b", "task": task, "precision": form.precision, "max_gpus": 8, "top": 1})


def test_leaving_qlora_for_inference_puts_nf4_back_to_bf16():
    assert forms.recommend_form("qlora", "bf16", "task").precision == "nf4"
    assert forms.recommend_form("inference", "nf4", "task").precision == "bf16"
    assert forms.recommend_form("inference", "int4", "task").precision == "int4"


def test_fp8_training_only_on_gpus_with_fp8():
    catalog = load_catalog()
    assert forms.training_precision(catalog, "A800", "fp8") == "bf16"
    assert forms.training_precision(catalog, "H100", "fp8") == "fp8"
    assert forms.training_precision(catalog, "no such gpu", "fp8") == "fp8"  # the tool explains unknown GPUs


def test_form_updates_are_gradio_updates():
    method, precision, _, _, zero = forms.memory_form_updates("training", "qlora", "bf16", 1, 1, 0, changed="method")
    assert precision["value"] == "nf4" and method["interactive"] is True and zero["interactive"] is False
    assert forms.recommend_form_updates("lora", "nf4", changed="task") == gr.update(value="bf16", interactive=False)


def test_dropdown_choices_are_relabelled_with_the_page_but_keep_their_values():
    labels = Relabeler()
    with gr.Blocks():
        labels.add(gr.Dropdown(forms.enum_choices(METHOD, list(METHOD))("zh"), value="qlora"),
                   choices=forms.enum_choices(METHOD, list(METHOD)), label="method")  # fmt: skip
    [en], [zh] = labels.updates("en"), labels.updates("zh")
    assert ("Full fine-tune", "full") in en["choices"] and ("全参微调", "full") in zh["choices"]
    assert "value" not in en


def test_handlers_use_the_values_and_render_in_the_language():
    registry = shared_registry()
    _, text = memory_calc(registry, "zh", "llama-3.1-8b", "training", "qlora", "nf4", 1, 4096, "rtx-4090", 1, 1, 0)
    assert "QLoRA" not in text.split("\n")[0] and "放得下" in text
    table, summary = recommend_calc(registry, "zh", "qwen2.5-7b", "inference", "bf16", 4096, 1, 0, "CNY", True, 8)
    assert table["data"] and "人民币" in summary and "单卡" in {row[3] for row in table["data"]}


def test_error_suggestions_name_form_controls():
    registry = shared_registry()
    try:
        registry.run("estimate_training_time", {"model": "llama-3.1-8b", "tokens": 1e12, "gpu": "H100"})
    except Exception as exc:  # noqa: BLE001 - the AdvisorError under test
        zh, en = error_message(exc, "zh"), error_message(exc, "en")
    assert "GPU 数量" in zh and "期限天数" in zh and "num_gpus" not in zh + en
