"""The Gradio web UI: a chat tab plus calculator tabs, relabelled in place by a Chinese/English toggle.

``build_ui`` only builds the Blocks; ``advisor.interfaces.server`` mounts it at ``/`` on the FastAPI app.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import gradio as gr

from advisor.interfaces.door_text import TEXT
from advisor.interfaces.ui_text import DEFAULT_LANGUAGE, EXAMPLES, t
from advisor.interfaces.web_calculators import FormContext, calculator_tabs
from advisor.interfaces.web_chat import respond
from advisor.interfaces.web_labels import Relabeler
from advisor.interfaces.web_proposal import proposal_download
from advisor.interfaces.web_settings import priced, settings_tab
from advisor.interfaces.web_style import table_style
from advisor.registry import Registry
from knowledge.catalog import load_catalog

UI_CONCURRENCY = 16  # events of one handler running at once, across all browser sessions
UI_QUEUE_SIZE = 256  # beyond this many waiting events the UI says "busy" instead of queueing forever

if TYPE_CHECKING:  # the agent package is heavy to import; the UI only calls Advisor.answer
    from advisor.service import Advisor


def _chat_tab(advisor: Advisor, labels: Relabeler, language: gr.Radio, prices: gr.State) -> None:
    with labels.add(gr.Tab(t("tab_chat", DEFAULT_LANGUAGE), id="chat"), label="tab_chat"):
        chatbot = labels.add(
            gr.Chatbot(
                label=t("chatbot", DEFAULT_LANGUAGE),
                elem_id="advisor-chat",
                height=560,
                buttons=["copy", "copy_all"],
                feedback_options=None,
                layout="bubble",
            ),
            label="chatbot",
        )
        turns = gr.State([])  # the conversation as ChatTurn dicts, per browser session
        # What the chatbot shows, kept on the server too: the chatbot is only ever an output, so no
        # client can hand the chat function a history (with file objects in it) of its own making.
        shown = gr.State([])
        with gr.Row():
            message = labels.add(
                gr.Textbox(
                    label=t("message", DEFAULT_LANGUAGE),
                    placeholder=t("message_placeholder", DEFAULT_LANGUAGE),
                    lines=2,
                    max_lines=12,
                    scale=5,
                    elem_id="advisor-message",
                ),
                label="message",
                placeholder="message_placeholder",
            )
            with gr.Column(scale=1, min_width=120):
                send = labels.add(gr.Button(t("send", DEFAULT_LANGUAGE), variant="primary", elem_id="advisor-send"), value="send")
                clear = labels.add(gr.Button(t("clear", DEFAULT_LANGUAGE)), value="clear")
        with gr.Row():  # under the answer: the conversation so far as a file a buyer can forward
            as_html = labels.add(gr.Button(t("proposal_html", DEFAULT_LANGUAGE), size="sm", elem_id="proposal-html"), value="proposal_html")
            as_pdf = labels.add(gr.Button(t("proposal_pdf", DEFAULT_LANGUAGE), size="sm", elem_id="proposal-pdf"), value="proposal_pdf")
            proposal_file = labels.add(gr.File(label=t("proposal_file", DEFAULT_LANGUAGE), elem_id="proposal-file", scale=2), label="proposal_file")
        examples = gr.Examples(EXAMPLES, inputs=message, label=t("examples", DEFAULT_LANGUAGE))
        labels.add(examples.dataset, label="examples")
    answer = partial(_answer, advisor)
    inputs, outputs = [message, shown, turns, language, prices], [chatbot, shown, turns, message]
    send.click(answer, inputs, outputs, api_name="chat")
    message.submit(answer, inputs, outputs, api_visibility="private")
    clear.click(lambda: ([], [], [], ""), None, [chatbot, shown, turns, message], api_visibility="private")
    for button, fmt in ((as_html, "html"), (as_pdf, "pdf")):
        button.click(priced(partial(proposal_download, advisor, fmt=fmt)), [prices, turns, language], proposal_file, api_visibility="private")


def _answer(advisor: Advisor, message: str, shown: list, turns: list, language: str, prices: str = ""):
    """``respond``'s messages go to the chatbot and to the server-side copy it is read back from."""
    for messages, new_turns, text in respond(advisor, message, shown, turns, language, prices):
        yield messages, messages, new_turns, text


def build_ui(advisor: Advisor, registry: Registry) -> gr.Blocks:
    """The whole UI; nothing runs until a browser connects."""
    labels = Relabeler()
    with gr.Blocks(title=" · ".join(TEXT.pair("product_title")), analytics_enabled=False) as demo:
        table_style()  # figures in table cells never wrap
        with gr.Row(equal_height=True):
            with gr.Column(scale=4):
                labels.add(gr.Markdown(t("title", DEFAULT_LANGUAGE)), value="title")
                labels.add(gr.Markdown(t("subtitle", DEFAULT_LANGUAGE)), value="subtitle")
            language = labels.add(
                gr.Radio(
                    [(TEXT.pick("language_names", "zh"), "zh"), (TEXT.pick("language_names", "en"), "en")],
                    value=DEFAULT_LANGUAGE,
                    label=t("language", DEFAULT_LANGUAGE),
                    scale=1,
                    elem_id="ui-language",
                ),
                label="language",
            )
        prices = gr.State("")  # the prices YAML this browser session pasted in the settings (validated), or ""
        with gr.Tabs():
            _chat_tab(advisor, labels, language, prices)
            catalog = load_catalog()
            ctx = FormContext(
                registry=registry,
                labels=labels,
                language=language,
                gpu_choices=[(f"{g.name} ({g.memory_gb:g} GB)", g.id) for g in catalog.gpus],
                model_choices=[(f"{m.name} ({m.params_b:g}B)", m.id) for m in catalog.models],
                prices=prices,
            )
            calculator_tabs(ctx, catalog)
            settings_tab(labels, language, prices)
        language.change(labels.updates, language, labels.components, api_visibility="private")
    # Gradio runs one event at a time per handler by default: one slow (LLM) answer would make every
    # other person wait. Answers are thread-safe; with --workers they run in other processes anyway.
    demo.queue(default_concurrency_limit=UI_CONCURRENCY, max_size=UI_QUEUE_SIZE)
    return demo
