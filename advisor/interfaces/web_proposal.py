"""The web UI's proposal buttons: the chat so far as a downloadable HTML or PDF file."""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr

from advisor.interfaces.web_chat import to_turns
from advisor.proposal.need import NeedMissing
from advisor.proposal.service import make_proposal, render

DOWNLOADS = Path(tempfile.gettempdir()) / "gpu-advisor-proposals"


def proposal_download(advisor, turns: list[dict] | None, ui_language: str, fmt: str) -> str | None:
    """The file's path for gr.File; with nothing sized yet, a toast saying what is needed and no file."""
    history = to_turns(turns)
    asked = [i for i, turn in enumerate(history) if turn.role == "user"]
    message = history[asked[-1]].content if asked else ""
    try:
        proposal = make_proposal(advisor.planner, message, history[: asked[-1]] if asked else [])
    except NeedMissing as exc:
        gr.Warning(exc.message(ui_language))
        return None
    made = render(proposal, fmt)
    DOWNLOADS.mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=DOWNLOADS))  # one folder per file: two sessions never share a name
    path = folder / made.filename
    path.write_bytes(made.content)
    return str(path)
