"""One self-contained HTML page: CSS and charts inline (PNG data URIs), no external asset of any kind,
and the inputs as JSON in ``<script type="application/json" id="proposal-inputs">`` for ``--from``."""

from __future__ import annotations

import base64
import json
from html import escape

from advisor.proposal.build import Proposal
from advisor.proposal.charts import all_charts
from advisor.proposal.document import Bullets, Chart, Code, Heading, Paragraph, Table, layout
from advisor.proposal.sections import INPUTS_ID

STYLE = """
body{font-family:"Noto Sans CJK SC","WenQuanYi Micro Hei","PingFang SC","Microsoft YaHei",system-ui,sans-serif;
max-width:960px;margin:2em auto;padding:0 1em;color:#1b2631;line-height:1.5}
h1{color:#1f4e79;margin-bottom:0}h2{color:#1f4e79;border-bottom:2px solid #d6eaf8;padding-bottom:.2em;margin-top:1.6em}
.subtitle{color:#566573;margin-top:.2em}table{border-collapse:collapse;width:100%;margin:.8em 0;font-size:.92em}
th,td{border:1px solid #d5d8dc;padding:.35em .5em;text-align:left;vertical-align:top}th{background:#eaf2f8}
img{max-width:100%;height:auto;display:block;margin:.8em 0}pre{background:#f4f6f7;padding:.7em;overflow-x:auto;font-size:.85em}
.lead{font-weight:600}footer{margin-top:2em;color:#808b96;font-size:.85em;border-top:1px solid #d5d8dc;padding-top:.5em}
@media print{body{margin:0}h2{page-break-after:avoid}img,table{page-break-inside:avoid}}
"""


def render_html(p: Proposal, language: str) -> str:
    doc = layout(p, language)
    charts = all_charts(p, language)
    body = [f"<h1>{escape(doc.title)}</h1>", f'<p class="subtitle">{escape(doc.subtitle)}</p>']
    for block in doc.blocks:
        if isinstance(block, Heading):
            body.append(f"<h{block.level}>{escape(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            body.append(f'<p class="lead">{escape(block.text)}</p>' if block.emphasis else f"<p>{escape(block.text)}</p>")
        elif isinstance(block, Bullets):
            body.append("<ul>" + "".join(f"<li>{escape(item)}</li>" for item in block.items) + "</ul>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{escape(h)}</th>" for h in block.headers)
            rows = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in block.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif isinstance(block, Code):
            body.append(f"<pre><code>{escape(chr(10).join(block.lines))}</code></pre>")
        elif isinstance(block, Chart) and block.name in charts:
            data = base64.b64encode(charts[block.name]).decode()
            body.append(f'<img alt="{escape(block.caption)}" src="data:image/png;base64,{data}">')
    # every "<" as \u003c: a "</script>" or "<!--" in a question can neither end the block nor change how it is parsed
    inputs = json.dumps(p.embedded(), ensure_ascii=False).replace("<", "\\u003c")
    lang = "zh-CN" if language == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(doc.title)} · {escape(doc.subtitle)}</title><style>{STYLE}</style></head><body>"
        + "\n".join(body)
        + f'<script type="application/json" id="{INPUTS_ID}">{inputs}</script>'
        + f"<footer>{escape(doc.footer)}</footer></body></html>\n"
    )
