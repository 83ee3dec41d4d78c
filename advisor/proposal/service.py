"""The one entry every door calls (chat, web button, embed, Slack, CLI, API): conversation in, file out."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from advisor.contract import ChatTurn, Language
from advisor.offline.planner import OfflinePlanner
from advisor.proposal.build import Proposal, advisor_version, build_proposal, today
from advisor.proposal.need import read_need
from advisor.proposal.sections import ATTACHMENT, INPUTS_ID, Images, ProposalInputs
from advisor.proposal.wording import phrase
from knowledge.bilingual import AdvisorError

Format = Literal["html", "pdf", "markdown"]
FORMAT_ALIASES = {"md": "markdown"}
MEDIA_TYPES = {"html": "text/html; charset=utf-8", "pdf": "application/pdf", "markdown": "text/markdown; charset=utf-8"}
SUFFIXES = {"html": ".html", "pdf": ".pdf", "markdown": ".md"}
INPUTS_SCRIPT = re.compile(rf'<script type="application/json" id="{INPUTS_ID}">(.*?)</script>', re.DOTALL)


@dataclass
class ProposalFile:
    proposal: Proposal
    content: bytes
    media_type: str
    filename: str
    images: dict[str, bytes] = field(default_factory=dict)  # Markdown with image files beside it


def make_proposal(
    planner: OfflinePlanner, message: str, history: Sequence[ChatTurn] = (), language: Language | None = None, built_on: str | None = None
) -> Proposal:
    """Read the need from the conversation and build the proposal; ``NeedMissing`` when nothing is sized yet."""
    need = read_need(message, history, planner, language)
    inputs = ProposalInputs(
        message=message, history=list(history), language=need.language, built_on=built_on or today(), version=advisor_version()
    )
    return build_proposal(need, inputs, planner.registry, planner.catalog)


def render(proposal: Proposal, fmt: str, images: Images = "inline", stem: str = "proposal") -> ProposalFile:
    # the renderers load matplotlib and fpdf2: only when a file is made, not when a server starts
    from advisor.proposal.render_html import render_html
    from advisor.proposal.render_md import render_markdown
    from advisor.proposal.render_pdf import render_pdf

    fmt = FORMAT_ALIASES.get(fmt, fmt)
    language = proposal.inputs.language
    filename = f"{stem}{SUFFIXES[fmt]}"
    if fmt == "html":
        return ProposalFile(proposal, render_html(proposal, language).encode("utf-8"), MEDIA_TYPES[fmt], filename)
    if fmt == "pdf":
        return ProposalFile(proposal, render_pdf(proposal, language), MEDIA_TYPES[fmt], filename)
    text, files = render_markdown(proposal, language, images=images, stem=stem)
    return ProposalFile(proposal, text.encode("utf-8"), MEDIA_TYPES[fmt], filename, files)


def embedded_inputs(path: Path) -> dict[str, Any]:
    """The JSON a proposal carries, from the .json itself, an HTML page or a PDF's attachment."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        en, zh = (phrase("proposal_unreadable", language, path=path, reason=exc.strerror) for language in ("en", "zh"))
        raise AdvisorError("proposal_unreadable", en, zh) from None
    text = _pdf_attachment(data) if data.startswith(b"%PDF") else data.decode("utf-8", errors="replace")
    found = INPUTS_SCRIPT.search(text) if text and "<html" in text[:500].lower() else None
    if found:
        text = found.group(1)
    try:
        value = json.loads(text or "")
        ProposalInputs.model_validate(value["inputs"])
    except (json.JSONDecodeError, KeyError, TypeError, ValidationError):
        raise AdvisorError("not_a_proposal", phrase("bad_from_file", "en", path=path), phrase("bad_from_file", "zh", path=path)) from None
    return value


def _pdf_attachment(data: bytes) -> str | None:
    try:
        from pypdf import PdfReader  # reading a PDF back is optional: the .json or .html works without it
    except ImportError:
        return None
    import io

    attachments = PdfReader(io.BytesIO(data)).attachments
    contents = attachments.get(ATTACHMENT)
    return contents[0].decode("utf-8") if contents else None


def rebuild(planner: OfflinePlanner, embedded: dict[str, Any], language: Language | None = None) -> tuple[Proposal, list[str]]:
    """The same conversation built again with today's catalog and prices, and what changed, in words."""
    old = ProposalInputs.model_validate(embedded["inputs"])
    proposal = make_proposal(planner, old.message, old.history, language or old.language)
    return proposal, changes(embedded.get("figures") or {}, proposal.figures_summary(), old.built_on, proposal)


def changes(old: dict[str, Any], new: dict[str, Any], old_date: str, proposal: Proposal) -> list[str]:
    language = proposal.inputs.language
    lines = []
    for index, (before, after) in enumerate(zip(old.get("options", []), new["options"], strict=False), start=1):
        what = phrase("diff_option", language, index=index)
        if before.get("config") != after["config"]:
            lines.append(phrase("diff_line", language, what=what, old=before.get("config"), new=after["config"]))
        elif before.get("purchase_cost") != after["purchase_cost"]:
            lines.append(phrase("diff_line", language, what=what, old=before.get("purchase_cost"), new=after["purchase_cost"]))
    if old.get("payback_month") != new["payback_month"]:
        lines.append(
            phrase("diff_line", language, what=phrase("diff_payback", language), old=old.get("payback_month"), new=new["payback_month"])
        )
    for what, amount in new["prices"].items():
        if old.get("prices", {}).get(what) != amount:
            lines.append(phrase("diff_line", language, what=what, old=old.get("prices", {}).get(what, "—"), new=amount))
    head = phrase("diff_heading", language, old_date=old_date, new_date=proposal.inputs.built_on)
    return [head, *(lines or [phrase("diff_none", language)])]
