"""Page-wide table styling for the Gradio UI: a figure in a table cell never wraps.

Gradio's Markdown lets long words break anywhere, so a narrow column could show "-0.0" over "2 GB".
Cells break only at spaces here, and a cell holding one figure ("16.06 GB", "$316,250", "24.7%",
"1,794,617 GPU-hours" written in Chinese) does not break at all — the same rule as the wiki embed's renderer (static/markdown.js).
Answers stream in, so a MutationObserver marks new cells as they appear.
"""

from __future__ import annotations

import gradio as gr

STYLE = """<style id="advisor-table-style">
.prose td, .prose th { word-break: normal; overflow-wrap: normal; }
.prose td.figure { white-space: nowrap; }
</style>"""

MARK_FIGURES = r"""
const FIGURE = /^[-\u2212+≈~$¥]*\d[\d.,]*(e[+-]?\d+)?[\s\u00a0]?(%|[A-Za-z\u4e00-\u9fff/·-]{0,12})$/;
function markFigures(root) {
  root.querySelectorAll(".prose td:not(.figure)").forEach(function (cell) {
    if (FIGURE.test(cell.textContent.trim())) cell.classList.add("figure");
  });
}
if (!window.__advisorFigures) {
  window.__advisorFigures = new MutationObserver(function () { markFigures(document); });
  window.__advisorFigures.observe(document.body, { childList: true, subtree: true, characterData: true });
}
markFigures(document);
"""


def table_style() -> gr.HTML:
    """An empty component whose only job is to add the table rules to the page's <head>."""
    return gr.HTML("", head=STYLE, js_on_load=MARK_FIGURES, container=False, padding=False, elem_id="advisor-table-style-host")
