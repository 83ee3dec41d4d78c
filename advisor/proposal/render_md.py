"""CommonMark for wikis. Charts are PNG files written beside the .md (``images="files"``), or inline
data URIs (``images="inline"``, one self-contained file for the API), or left out (``images="none"``, the chat)."""

from __future__ import annotations

import base64
import json
import re

from advisor.markdown import escape_raw_html
from advisor.proposal.build import Proposal
from advisor.proposal.charts import all_charts
from advisor.proposal.document import Bullets, Chart, Code, Heading, Paragraph, Table, layout
from advisor.proposal.sections import Images


def render_markdown(p: Proposal, language: str, images: Images = "inline", stem: str = "proposal") -> tuple[str, dict[str, bytes]]:
    """The Markdown text, and the image files it links to (name → PNG) when ``images="files"``."""
    doc = layout(p, language)
    charts = all_charts(p, language) if images != "none" else {}
    files: dict[str, bytes] = {}
    out = [f"# {_text(doc.title)}", f"_{_text(doc.subtitle)}_"]
    for block in doc.blocks:
        if isinstance(block, Heading):
            out.append(f"{'#' * block.level} {_text(block.text)}")
        elif isinstance(block, Paragraph):
            out.append(f"**{_text(block.text)}**" if block.emphasis else _text(block.text))
        elif isinstance(block, Bullets):
            out.append("\n".join(f"- {_text(item)}" for item in block.items))
        elif isinstance(block, Table):
            out.append(_table(block))
        elif isinstance(block, Code):
            out.append("```sh\n" + "\n".join(block.lines) + "\n```")
        elif isinstance(block, Chart) and block.name in charts:
            png = charts[block.name]
            if images == "files":
                name = f"{stem}-{block.name}.png"
                files[name] = png
                out.append(f"![{_text(block.caption)}]({name})")
            else:
                out.append(f"![{_text(block.caption)}](data:image/png;base64,{base64.b64encode(png).decode()})")
    inputs = json.dumps(p.embedded(), ensure_ascii=False, indent=1)
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", inputs)), default=0))  # longer than any run inside
    out.append(f"{fence}json\n{inputs}\n{fence}")
    out.append(f"_{_text(doc.footer)}_")
    return "\n\n".join(out) + "\n", files


def _text(text: str) -> str:
    """Words from tools and users as plain text: no live HTML, no accidental emphasis or table breaks."""
    return escape_raw_html(text).replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def _table(table: Table) -> str:
    lines = ["| " + " | ".join(_text(h) for h in table.headers) + " |", "|" + "---|" * len(table.headers)]
    lines += ["| " + " | ".join(_text(str(c)).replace("\n", " ") for c in row) + " |" for row in table.rows]
    return "\n".join(lines)
