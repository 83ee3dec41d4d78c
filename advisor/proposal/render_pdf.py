"""PDF with correct Chinese glyphs (fpdf2 and the CJK font from ``fonts.cjk_font``), charts as PNG
images, and the inputs twice: as an attached file (proposal.json) and as a printed appendix."""

from __future__ import annotations

import io
import json

from fpdf import FPDF
from fpdf.enums import TableCellFillMode
from fpdf.fonts import FontFace

from advisor.proposal.build import Proposal
from advisor.proposal.charts import all_charts
from advisor.proposal.document import Bullets, Chart, Code, Heading, Paragraph, Table, layout
from advisor.proposal.fonts import cjk_font
from advisor.proposal.sections import ATTACHMENT

FONT = "cjk"
BLUE = (31, 78, 121)
GREY = (86, 101, 115)


def render_pdf(p: Proposal, language: str) -> bytes:
    doc = layout(p, language)
    charts = all_charts(p, language)
    pdf = FPDF(format="A4")
    font = str(cjk_font())
    # One face only: a CJK font ships no bold cut, and parsing it is most of the PDF's time; emphasis is colour and size.
    if font.endswith(".ttc"):
        pdf.add_font(FONT, "", font, collection_font_number=0)
    else:
        pdf.add_font(FONT, "", font)
    pdf.set_title(f"{doc.title} · {doc.subtitle}")
    pdf.set_creator(doc.footer)
    pdf.set_lang("zh-CN" if language == "zh" else "en")
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    pdf.set_font(FONT, "", 18)
    pdf.set_text_color(*BLUE)
    pdf.multi_cell(0, 9, doc.title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FONT, "", 10)
    pdf.set_text_color(*GREY)
    pdf.multi_cell(0, 6, doc.subtitle, new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    for block in doc.blocks:
        _draw(pdf, block, charts)
    inputs = json.dumps(p.embedded(), ensure_ascii=False, indent=1)
    pdf.set_font(FONT, "", 7)
    pdf.multi_cell(0, 3.5, inputs, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font(FONT, "", 8)
    pdf.set_text_color(*GREY)
    pdf.multi_cell(0, 5, doc.footer, new_x="LMARGIN", new_y="NEXT")
    pdf.embed_file(bytes=inputs.encode("utf-8"), basename=ATTACHMENT, desc="proposal inputs", mime_type="application/json")
    return bytes(pdf.output())


def _draw(pdf: FPDF, block, charts: dict[str, bytes]) -> None:
    width = pdf.epw
    if isinstance(block, Heading):
        pdf.ln(3)
        pdf.set_font(FONT, "", 13)
        pdf.set_text_color(*BLUE)
        pdf.multi_cell(width, 7, block.text, align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.set_text_color(0, 0, 0)
    elif isinstance(block, Paragraph):
        pdf.set_font(FONT, "", 10.5 if block.emphasis else 10)
        pdf.set_text_color(*(BLUE if block.emphasis else (0, 0, 0)))
        pdf.multi_cell(width, 5.5, block.text, align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.set_text_color(0, 0, 0)
        pdf.ln(1)
    elif isinstance(block, Bullets):
        pdf.set_font(FONT, "", 9.5)
        for item in block.items:
            pdf.multi_cell(width, 5, f"• {item}", align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
    elif isinstance(block, Table):
        pdf.set_font(FONT, "", 7.5 if len(block.headers) > 6 else 8.5)
        heading = FontFace(family=FONT, color=BLUE, fill_color=(234, 242, 248))
        with pdf.table(line_height=4.2, cell_fill_mode=TableCellFillMode.NONE, headings_style=heading, text_align="LEFT",
                       col_widths=_column_widths(block)) as table:  # fmt: skip
            for row in [block.headers, *block.rows]:
                cells = table.row()
                for cell in row:
                    cells.cell(str(cell))
        pdf.ln(1)
    elif isinstance(block, Code):
        pdf.set_font(FONT, "", 7.5)
        pdf.set_fill_color(244, 246, 247)
        pdf.multi_cell(width, 4, "\n".join(block.lines), fill=True, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
    elif isinstance(block, Chart) and block.name in charts:
        pdf.image(io.BytesIO(charts[block.name]), w=width * 0.95)
        pdf.ln(1)


def _column_widths(table: Table) -> tuple[float, ...]:
    """Wider columns for longer text (a configuration name, a formula), none narrower than a short number."""
    longest = [max(len(str(row[i])) for row in [table.headers, *table.rows]) for i in range(len(table.headers))]
    return tuple(min(max(n, 10), 48) for n in longest)
