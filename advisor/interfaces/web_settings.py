"""The settings tab: a browser session's own prices, pasted as YAML (the UI takes no file uploads).

The pasted text is validated exactly as an ``ADVISOR_PRICES`` file is and, once valid, kept in the
session's ``gr.State``; the chat and the calculators put it in force for that session's answers only
(``knowledge.price_overrides.session_prices``). A bad paste changes nothing: the prices in force stay,
the text stays in the box, and the message names the line and the fix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from advisor.interfaces.ui_text import DEFAULT_LANGUAGE, t
from advisor.interfaces.web_labels import Relabeler
from knowledge.bilingual import AdvisorError
from knowledge.catalog import pasted_prices
from knowledge.price_overrides import session_prices

BOX_LINES = 14


def prices_status(prices: str, language: str) -> str:
    """What is in force for the session: nothing of its own, or the list of entries its pasted prices set."""
    overrides = pasted_prices(prices) if prices else None
    if overrides is None:
        return t("prices_none", language)
    entries = overrides.entries()
    return t("prices_in_force", language).format(len(entries)) + "\n\n" + "\n".join(f"- `{entry}`" for entry in entries)


def apply_prices(text: str | None, current: str, language: str) -> tuple[str, str]:
    """(prices in force, status): the pasted text when valid; otherwise the previous prices and the bilingual error."""
    text = text or ""
    try:
        pasted_prices(text)
    except AdvisorError as exc:
        kept = t("prices_kept_yours" if current else "prices_kept_catalog", language)
        error = exc.message(language).replace("\n", "\n\n")  # one problem per paragraph in Markdown
        return current, f"{t('prices_rejected', language)}\n\n{error}\n\n{t('prices_kept', language).format(kept)}"
    kept_text = text if text.strip() else ""
    return kept_text, prices_status(kept_text, language)


def clear_prices(language: str) -> tuple[str, str, str]:
    """(prices in force, box text, status): back to the catalog's prices (and the server's file, if any)."""
    return "", "", t("prices_none", language)


def priced(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` taking the session's prices as its first argument and running with them in force."""

    def run(prices: str, *args: Any, **kwargs: Any) -> Any:
        with session_prices(pasted_prices(prices) if prices else None):
            return handler(*args, **kwargs)

    # no functools.wraps: Gradio reads the signature (through __wrapped__) to count inputs, and this one takes prices first
    run.__name__ = getattr(handler, "__name__", None) or getattr(getattr(handler, "func", None), "__name__", "priced")
    return run


def settings_tab(labels: Relabeler, language: gr.Radio, prices: gr.State) -> None:
    """The tab; ``prices`` is the session's state the chat and calculators read."""
    with labels.add(gr.Tab(t("tab_settings", DEFAULT_LANGUAGE), id="settings"), label="tab_settings"):
        labels.add(gr.Markdown(t("prices_help", DEFAULT_LANGUAGE)), value="prices_help")
        box = labels.add(
            gr.Textbox(label=t("prices_box", DEFAULT_LANGUAGE), placeholder=t("prices_placeholder", DEFAULT_LANGUAGE),
                       lines=BOX_LINES, max_lines=60, elem_id="settings-prices"),  # fmt: skip
            label="prices_box",
            placeholder="prices_placeholder",
        )
        with gr.Row():
            apply = labels.add(gr.Button(t("prices_apply", DEFAULT_LANGUAGE), variant="primary", elem_id="settings-apply"), value="prices_apply")
            clear = labels.add(gr.Button(t("prices_clear", DEFAULT_LANGUAGE), elem_id="settings-clear"), value="prices_clear")
        status = gr.Markdown(t("prices_none", DEFAULT_LANGUAGE), elem_id="settings-status")
    apply.click(apply_prices, [box, prices, language], [prices, status], api_visibility="private")
    clear.click(clear_prices, [language], [prices, box, status], api_visibility="private")
    language.change(prices_status, [prices, language], status, api_visibility="private")
