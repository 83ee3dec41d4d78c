"""Markdown formatting helpers shared by the offline planner's answers and the web UI's calculator results."""

from __future__ import annotations

import re
from collections.abc import Sequence
from unicodedata import east_asian_width
from pathlib import Path

from knowledge.sentences import sentences
from knowledge.wording import Wording
from tools.cost.money import SYMBOLS

TEXT = Wording(Path(__file__).with_name("messages_text.yaml"))

# A backtick run (a code span may open here) or a '<' that a renderer would read as an HTML tag.
_TICKS_OR_TAG = re.compile(r"(?P<ticks>`+)|<(?=[A-Za-z/!?])")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def number(value: float, digits: int = 1) -> str:
    """Readable figure: thousands separators, no trailing '.0' noise on big numbers."""
    if value is None:
        return "—"
    if abs(value) >= 1e12:  # FLOPs and token counts read better in scientific notation
        return f"{value:.3g}".replace("e+", "e")
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:,.0f}"


def token_count(tokens: float) -> str:
    """"1T", "200M", "1.5B": a data size the way people say it."""
    scale, suffix = next(((s, x) for s, x in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")) if tokens >= s), (1, ""))
    return number(tokens / scale) + suffix


def money(amount: float | None, currency: str) -> str:
    if amount is None:
        return "—"
    # below 100 the cents are part of the price ("$2.69/GPU-hour", "$0.10/kWh"): kept, trailing zeros too
    figure = f"{amount:,.2f}" if abs(amount) < 100 else number(amount, 0)
    if 0 < abs(amount) < 0.1:  # a fraction of a cent is part of a unit price ("$0.0806/kWh", "$0.0045 per 1k tokens")
        figure = f"{amount:.4f}".rstrip("0")
    return f"{SYMBOLS.get(currency, '')}{figure}"


def bullet_list(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items if item)


def code_span(text: str) -> str:
    """``text`` as one inline code span, whatever backticks it contains (CommonMark: the fence
    must be a backtick run longer than any inside, padded when the text starts or ends with one)."""
    text = text.replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def escape_raw_html(markdown: str) -> str:
    """Backslash-escape every '<' that would open an HTML tag, except inside code spans.

    Answers never contain HTML on purpose, but they echo user text (log excerpts, names from a
    pasted config.json, tool errors); a renderer with HTML enabled would otherwise run a pasted
    ``<script>``. ``\\<`` shows as a plain '<' in CommonMark and in the Slack converter.
    Code spans never cross a blank line, so each paragraph is scanned on its own.
    """
    return "\n\n".join(_escape_paragraph(part) for part in markdown.split("\n\n"))


def _escape_paragraph(text: str) -> str:
    out: list[str] = []
    position = 0
    while (match := _TICKS_OR_TAG.search(text, position)) is not None:
        start = match.start()
        escaped = _backslashes_before(text, start) % 2 == 1
        out.append(text[position:start])
        ticks = match.group("ticks")
        if ticks and not escaped:
            closing = re.compile(rf"(?<!`){ticks}(?!`)").search(text, match.end())
            end = closing.end() if closing else match.end()  # unclosed: the backticks are literal
            out.append(text[start:end])
            position = end
            continue
        out.append(match.group(0) if ticks or escaped else "\\<")
        position = match.end()
    out.append(text[position:])
    return "".join(out)


def _backslashes_before(text: str, index: int) -> int:
    count = 0
    while index - count > 0 and text[index - count - 1] == "\\":
        count += 1
    return count


def sources_section(sources: Sequence, language: str) -> str:
    """The one sources section of an answer: a heading and one Markdown link per source
    (``[title · section](url)``; a source without a web address is named with its citation).
    Interfaces render the answer as it is and never add a second list."""
    lines = []
    for source in sources:
        section = source.section if source.section != source.title else ""  # a card's one section is titled as the card
        name = " · ".join(part for part in (source.title, section) if part).replace("[", "(").replace("]", ")")
        url = next((u for u in source.urls if u.startswith(("http://", "https://"))), None)
        cited = source.citation or next((u for u in source.urls if u != url), "")
        if url:
            lines.append(f"- [{name}]({url.replace(' ', '%20').replace('(', '%28').replace(')', '%29')})")
        else:
            lines.append(f"- {name}" + (f" ({cited})" if cited else ""))
    if not lines:
        return ""
    return "**" + TEXT.pick("sources_heading", language) + "**\n" + "\n".join(lines)


FOLD_LINES = 12  # about one phone screen above the fold (#36: the part read first fits one screen)
WRAP_CHARS = 120  # columns of a line: a Chinese character takes two


def _columns(line: str) -> int:
    """Screen columns of a line: wide (East Asian) characters take two, as a terminal or chat pane draws them."""
    return len(line) + sum(1 for char in line if east_asian_width(char) in "WF")


def _screen_lines(block: str) -> int:
    """Lines a block takes on screen: a list item is a line and long prose wraps; a table row is a line whose
    cells wrap inside their columns (about twice the width of prose before it takes a second line); a table's
    separator row is not drawn."""
    lines = [line for line in block.splitlines() if line.strip()]
    rows = [line for line in lines if line.lstrip().startswith("|")]
    drawn = [line for line in rows if not set(line.strip()) <= set("|-: ")]
    prose = [line for line in lines if line not in rows]
    return sum(1 + _columns(line) // WRAP_CHARS for line in prose) + sum(1 + _columns(line) // (2 * WRAP_CHARS) for line in drawn)


screen_lines = _screen_lines  # the public name: how many lines a block takes on screen


def _is_title(block: str) -> bool:
    """A one-line heading ("**Diagnosis**", "### Sources") with nothing under it in the same block."""
    line = block.strip()
    return "\n" not in line and (line.startswith("#") or (line.startswith("**") and line.endswith("**"))) and len(line) <= 120


def fold(body: str, limit: int = FOLD_LINES, cut_first: bool = False) -> tuple[str, str]:
    """``body`` split into what is read first (the verdict and the few blocks after it that fit on one
    screen) and the details below the fold. Blocks are never cut: the first one always stays above, whole unless
    ``cut_first`` (a part of a several-question answer, whose share of the screen a card's paragraph can outgrow):
    then its opening sentences that fit stay above and the rest of it goes below (``first_sentences``)."""
    blocks = [b for b in body.split("\n\n") if b.strip()]
    shown, used = [], 0
    for index, block in enumerate(blocks):
        lines = _screen_lines(block)
        # A title alone is no answer: the first block after it stays above the fold too.
        if index and used + lines > limit and not all(_is_title(b) for b in shown):
            while len(shown) > 1 and _is_title(shown[-1]):  # a title goes below with the table it heads
                shown.pop()
                index -= 1
            return "\n\n".join(shown), "\n\n".join(blocks[index:])
        if cut_first and used + lines > limit and not _is_title(block):
            kept, rest = first_sentences(block, limit - used)
            if rest:
                return "\n\n".join([*shown, kept]), "\n\n".join([rest, *blocks[index + 1 :]])
        shown.append(block)
        used += lines
    return "\n\n".join(shown), ""


def table_shown(summary: str, details: str) -> tuple[str, str]:
    """``summary`` and ``details`` with the answer's first table above the fold when it was folded away: a table the
    user asked for is the answer, not a detail. The title block right above the table moves with it."""
    if any(_is_table(block) for block in summary.split("\n\n")):
        return summary, details
    blocks = [b for b in details.split("\n\n") if b.strip()]
    found = next((index for index, block in enumerate(blocks) if _is_table(block)), None)
    if found is None:
        return summary, details
    start = found - 1 if found and _is_title(blocks[found - 1]) else found
    shown = "\n\n".join(filter(None, [summary, *blocks[start : found + 1]]))
    return shown, "\n\n".join(blocks[:start] + blocks[found + 1 :])


def _is_table(block: str) -> bool:
    """A block whose first line is a Markdown table row ("| a | b |")."""
    return block.lstrip().startswith("|")


NOT_PROSE = ("|", "- ", "* ", "+ ", "```", ">", "#")  # a table, a list, code, a quote or a heading: never cut inside


def _joined(units: list[tuple[int, str]]) -> str:
    """Sentences back into text: a new line where the block had one, no space after a full-width end mark."""
    text = ""
    for position, (line, piece) in enumerate(units):
        if position:
            before = units[position - 1]
            text += "\n" if line != before[0] else ("" if before[1][-1] > "\u2e80" else " ")
        text += piece
    return text


def first_sentences(block: str, room: int) -> tuple[str, str]:
    """A prose block cut after the sentences that fit in ``room`` screen lines (at least its first sentence), and the
    rest; (``block``, "") when it is not prose, has one sentence, or cannot be cut without splitting emphasis or code."""
    lines = block.split("\n")
    if any(line.lstrip().startswith(NOT_PROSE) for line in lines):
        return block, ""
    units = [(number_, piece) for number_, line in enumerate(lines) for piece in sentences(line)]
    best = 0
    for count in range(1, len(units)):
        head = _joined(units[:count])
        if head.count("**") % 2 or head.count("`") % 2:  # a cut inside bold or code would break the marks
            continue
        if best and _screen_lines(head) > room:
            break
        best = count
    if not best:
        return block, ""
    return _joined(units[:best]), _joined(units[best:])
