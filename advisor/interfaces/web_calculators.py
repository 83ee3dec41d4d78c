"""The calculator tabs: forms for people who would rather not chat. Layout only: the calculations are in
``web_handlers``, the choices people read and the rules that keep each form valid in ``web_forms``.

Choice lists come from the tools' own request models (their ``Literal`` fields) and the catalog, so a
value added to a tool shows up here without editing the UI; dropdowns show (label, value) pairs in the
page's language, and the language toggle relabels them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import gradio as gr
from pydantic import BaseModel

from advisor.interfaces import web_forms as forms
from advisor.interfaces import web_handlers as handlers
from advisor.interfaces.ui_text import DEFAULT_LANGUAGE, t
from advisor.interfaces.web_labels import Choices, Relabeler
from advisor.interfaces.web_settings import priced
from advisor.labels import CURRENCY, ENGINE, METHOD, MODE, OBJECTIVE, TASK, ZERO_STAGE
from advisor.registry import Registry
from knowledge.catalog import Catalog
from tools.cost.training_time import TrainingTimeRequest
from tools.memory.schema import MemoryRequest
from tools.recommend import RecommendRequest
from tools.serving.schema import ThroughputRequest

# Column widths (%) so the long text columns wrap instead of pushing numbers off screen.
RECOMMEND_WIDTHS = ["4%", "16%", "6%", "10%", "8%", "8%", "8%", "7%", "8%", "8%", "17%"]
CATALOG_WIDTHS = ["24%", "8%", "10%", "8%", "9%", "8%", "8%", "7%", "10%", "8%"]
literal_choices = forms.literal_choices


def default(model: type[BaseModel], field: str):
    return model.model_fields[field].default


@dataclass
class FormContext:
    """What every tab needs: the registry to call, the relabeler to register with, the language input."""

    registry: Registry
    labels: Relabeler
    language: gr.Radio
    gpu_choices: list[tuple[str, str]]
    model_choices: list[tuple[str, str]]
    prices: gr.State | None = None  # the session's pasted prices (settings tab); None in a UI built without one

    def priced(self, handler, inputs: list) -> tuple:
        """(function, inputs) that run ``handler`` with the session's prices in force, for the tabs whose results hold prices."""
        if self.prices is None:
            return handler, inputs
        return priced(handler), [self.prices, *inputs]

    def label(self, component, **keys: str):
        return self.labels.add(component, **keys)

    def run_button(self) -> gr.Button:
        return self.label(gr.Button(t("run", DEFAULT_LANGUAGE), variant="primary"), value="run")


def _number(ctx: FormContext, key: str, value=None, integer: bool = False, **kwargs) -> gr.Number:
    return ctx.label(gr.Number(value=value, label=t(key, DEFAULT_LANGUAGE), precision=0 if integer else None, **kwargs), label=key)


def _dropdown(ctx: FormContext, key: str, choices: list | Choices, value, custom: bool = False, **kwargs) -> gr.Dropdown:
    """A dropdown labelled from ``ui_text``; ``choices`` given as a function are (label, value) pairs relabelled with the page."""
    listed = choices(DEFAULT_LANGUAGE) if callable(choices) else choices
    dropdown = gr.Dropdown(listed, value=value, label=t(key, DEFAULT_LANGUAGE), allow_custom_value=custom, **kwargs)
    return ctx.labels.add(dropdown, choices=choices if callable(choices) else None, label=key)


def memory_tab(ctx: FormContext) -> None:
    with ctx.label(gr.Tab(t("tab_memory", DEFAULT_LANGUAGE), id="memory"), label="tab_memory"):
        with gr.Row():
            model = _dropdown(ctx, "model", ctx.model_choices, "llama-3.1-8b", custom=True)
            mode = _dropdown(ctx, "mode", forms.enum_choices(MODE, literal_choices(MemoryRequest, "mode")), "inference")
            precision = _dropdown(ctx, "precision", forms.precision_choices, "bf16", custom=True)
            gpu = _dropdown(ctx, "gpu", ctx.gpu_choices, "h100-sxm", custom=True)
        with gr.Row():
            batch = _number(ctx, "batch", default(MemoryRequest, "batch"), integer=True, minimum=1)
            context = _number(ctx, "context", default(MemoryRequest, "context"), integer=True, minimum=1)
            num_gpus = _number(ctx, "num_gpus", 1, integer=True, minimum=1)
            tp = _number(ctx, "tp", default(MemoryRequest, "tp"), integer=True, minimum=1)
            # training-only settings: greyed out until the workload is training (the form rules switch them on)
            method = _dropdown(ctx, "method", forms.enum_choices(METHOD, literal_choices(MemoryRequest, "method")),
                               default(MemoryRequest, "method"), interactive=False)  # fmt: skip
            zero = _dropdown(ctx, "zero_stage", forms.enum_choices(ZERO_STAGE, list(ZERO_STAGE)), default(MemoryRequest, "zero_stage"),
                             interactive=False)  # fmt: skip
        run = ctx.run_button()
        plot = ctx.label(gr.Plot(label=t("memory_chart", DEFAULT_LANGUAGE), elem_id="memory-plot"), label="memory_chart")
        details = gr.Markdown(elem_id="memory-details", elem_classes=["calc-result"])
    form = [mode, method, precision, num_gpus, tp, zero]
    for name, control in (("mode", mode), ("method", method), ("precision", precision), ("num_gpus", num_gpus), ("tp", tp)):
        control.input(partial(forms.memory_form_updates, changed=name), form, [method, precision, num_gpus, tp, zero],
                      api_visibility="private")  # fmt: skip
    run.click(
        partial(handlers.memory_calc, ctx.registry),
        [ctx.language, model, mode, method, precision, batch, context, gpu, num_gpus, tp, zero],
        [plot, details],
        api_name="memory",
    )


def recommend_tab(ctx: FormContext) -> None:
    with ctx.label(gr.Tab(t("tab_recommend", DEFAULT_LANGUAGE), id="recommend"), label="tab_recommend"):
        with gr.Row():
            model = _dropdown(ctx, "model", ctx.model_choices, "qwen2.5-7b", custom=True)
            task = _dropdown(ctx, "task", forms.enum_choices(TASK, literal_choices(RecommendRequest, "task")), default(RecommendRequest, "task"))
            precision = _dropdown(ctx, "precision", forms.precision_choices, "bf16", custom=True)
            context = _number(ctx, "context", default(RecommendRequest, "context"), integer=True, minimum=1)
            batch = _number(ctx, "batch", default(RecommendRequest, "batch"), integer=True, minimum=1)
        with gr.Row():
            budget = _number(ctx, "budget", 0, minimum=0)
            currency = _dropdown(ctx, "currency", forms.enum_choices(CURRENCY, list(CURRENCY)), "USD")
            max_gpus = _number(ctx, "max_gpus", default(RecommendRequest, "max_gpus"), integer=True, minimum=1)
            objective = _dropdown(ctx, "objective", forms.enum_choices(OBJECTIVE, literal_choices(RecommendRequest, "objective")),
                                  default(RecommendRequest, "objective"))  # fmt: skip
            china = ctx.label(gr.Checkbox(False, label=t("china_only", DEFAULT_LANGUAGE)), label="china_only")
        run = ctx.run_button()
        summary = gr.Markdown(elem_classes=["calc-result"])
        table = ctx.label(
            gr.Dataframe(label=t("table", DEFAULT_LANGUAGE), interactive=False, wrap=True, column_widths=RECOMMEND_WIDTHS),
            label="table",
        )
    for name, control in (("task", task), ("precision", precision)):
        control.input(partial(forms.recommend_form_updates, changed=name), [task, precision], precision, api_visibility="private")
    run.click(
        *ctx.priced(partial(handlers.recommend_calc, ctx.registry),
                    [ctx.language, model, task, precision, context, batch, budget, currency, china, max_gpus, objective]),
        [table, summary],
        api_name="recommend",
    )


def serving_tab(ctx: FormContext) -> None:
    with ctx.label(gr.Tab(t("tab_serving", DEFAULT_LANGUAGE), id="serving"), label="tab_serving"):
        with gr.Row():
            model = _dropdown(ctx, "model", ctx.model_choices, "llama-3.1-8b", custom=True)
            gpu = _dropdown(ctx, "gpu", ctx.gpu_choices, "h100-sxm", custom=True)
            num_gpus = _number(ctx, "num_gpus", 1, integer=True, minimum=1)
            tp = _number(ctx, "tp", 1, integer=True, minimum=1)
            engine = _dropdown(ctx, "engine", forms.enum_choices(ENGINE, literal_choices(ThroughputRequest, "engine")),
                               default(ThroughputRequest, "engine"))  # fmt: skip
            precision = _dropdown(ctx, "precision", forms.precision_choices, "bf16", custom=True)
        with gr.Row():
            prompt = _number(ctx, "prompt_tokens", default(ThroughputRequest, "prompt_tokens"), integer=True, minimum=1)
            output = _number(ctx, "output_tokens", default(ThroughputRequest, "output_tokens"), integer=True, minimum=1)
            batch = _number(ctx, "concurrency", 16, integer=True, minimum=1)
            speed = _number(ctx, "target_speed", 0, minimum=0)
            ttft = _number(ctx, "target_ttft", 0, minimum=0)
        run = ctx.run_button()
        plot = ctx.label(gr.Plot(label=t("serving_chart", DEFAULT_LANGUAGE), elem_id="serving-plot"), label="serving_chart")
        details = gr.Markdown(elem_id="serving-details", elem_classes=["calc-result"])
    run.click(
        partial(handlers.serving_calc, ctx.registry),
        [ctx.language, model, gpu, num_gpus, tp, engine, precision, prompt, output, batch, speed, ttft],
        [plot, details],
        api_name="serving",
    )


def tco_tab(ctx: FormContext) -> None:
    with ctx.label(gr.Tab(t("tab_tco", DEFAULT_LANGUAGE), id="tco"), label="tab_tco"):
        with gr.Row():
            gpu = _dropdown(ctx, "gpu", ctx.gpu_choices, "h100-sxm", custom=True)
            servers = _number(ctx, "servers", 1, integer=True, minimum=1)
            per_server = _number(ctx, "gpus_per_server", 8, integer=True, minimum=1)
            utilisation = _number(ctx, "utilisation", 60, minimum=0, maximum=100)
        with gr.Row():
            lifetime = _number(ctx, "lifetime", 4, minimum=0)
            currency = _dropdown(ctx, "currency", forms.enum_choices(CURRENCY, list(CURRENCY)), "USD")
            server_price = _number(ctx, "server_price", 0, minimum=0)
            cloud_price = _number(ctx, "cloud_price", 0, minimum=0)
        run = ctx.run_button()
        plot = ctx.label(gr.Plot(label=t("tco_chart", DEFAULT_LANGUAGE)), label="tco_chart")
        details = gr.Markdown(elem_classes=["calc-result"])
    run.click(
        *ctx.priced(partial(handlers.tco_calc, ctx.registry),
                    [ctx.language, gpu, servers, per_server, utilisation, lifetime, currency, server_price, cloud_price]),
        [plot, details],
        api_name="tco",
    )


def training_tab(ctx: FormContext, catalog: Catalog) -> None:
    with ctx.label(gr.Tab(t("tab_training", DEFAULT_LANGUAGE), id="training"), label="tab_training"):
        with gr.Row():
            model = _dropdown(ctx, "model", ctx.model_choices, "llama-3.1-70b", custom=True)
            tokens = ctx.label(gr.Textbox("2T", label=t("tokens", DEFAULT_LANGUAGE)), label="tokens")
            gpu = _dropdown(ctx, "gpu", ctx.gpu_choices, "a800-80gb-sxm", custom=True)
            num_gpus = _number(ctx, "num_gpus", 16, integer=True, minimum=1)
        with gr.Row():
            deadline = _number(ctx, "deadline", 0, minimum=0)
            matmul = [(p.upper(), p) for p in literal_choices(TrainingTimeRequest, "precision")]  # BF16, FP8: the same in both languages
            precision = _dropdown(ctx, "training_precision", matmul, default(TrainingTimeRequest, "precision"))
            mfu = _number(ctx, "mfu", 0, minimum=0, maximum=1, step=0.05)
            price = _number(ctx, "cloud_price", 0, minimum=0)
        run = ctx.run_button()
        details = gr.Markdown(elem_classes=["calc-result"])
    for control in (gpu, precision):  # FP8 only where the GPU has FP8 tensor cores
        control.input(partial(forms.training_form_updates, catalog), [gpu, precision], precision, api_visibility="private")
    run.click(
        *ctx.priced(partial(handlers.training_calc, ctx.registry), [ctx.language, model, tokens, gpu, num_gpus, deadline, precision, mfu, price]),
        details,
        api_name="training_time",
    )


def troubleshoot_tab(ctx: FormContext) -> None:
    with ctx.label(gr.Tab(t("tab_troubleshoot", DEFAULT_LANGUAGE), id="troubleshoot"), label="tab_troubleshoot"):
        text = ctx.label(
            gr.Textbox(lines=10, max_lines=30, label=t("log", DEFAULT_LANGUAGE), placeholder=t("log_placeholder", DEFAULT_LANGUAGE)),
            label="log",
            placeholder="log_placeholder",
        )
        run = ctx.run_button()
        details = gr.Markdown(elem_classes=["calc-result"])
    run.click(partial(handlers.troubleshoot_calc, ctx.registry), [ctx.language, text], details, api_name="diagnose")


def catalog_tab(ctx: FormContext, catalog: Catalog) -> None:
    vendors = sorted({g.vendor for g in catalog.gpus})
    with ctx.label(gr.Tab(t("tab_catalog", DEFAULT_LANGUAGE), id="catalog"), label="tab_catalog"):
        with gr.Row():
            vendor = _dropdown(ctx, "vendor", [("—", ""), *vendors], "")
            segment = _dropdown(ctx, "segment", forms.segment_choices, "")
            min_memory = _number(ctx, "min_memory", 0, minimum=0)
            china = ctx.label(gr.Checkbox(False, label=t("china_only", DEFAULT_LANGUAGE)), label="china_only")
        error = gr.Markdown()
        initial, _ = handlers.catalog_calc(ctx.registry, DEFAULT_LANGUAGE, "", "", 0, False)
        table = ctx.label(
            gr.Dataframe(initial, label=t("table", DEFAULT_LANGUAGE), interactive=False, wrap=True, column_widths=CATALOG_WIDTHS),
            label="table",
        )
    listing, inputs = ctx.priced(partial(handlers.catalog_calc, ctx.registry), [ctx.language, vendor, segment, min_memory, china])
    for control in (ctx.language, vendor, segment, min_memory, china):  # the language too: headers are translated
        control.change(listing, inputs, [table, error], api_visibility="private")


def calculator_tabs(ctx: FormContext, catalog: Catalog) -> None:
    memory_tab(ctx)
    serving_tab(ctx)
    recommend_tab(ctx)
    tco_tab(ctx)
    training_tab(ctx, catalog)
    troubleshoot_tab(ctx)
    catalog_tab(ctx, catalog)
