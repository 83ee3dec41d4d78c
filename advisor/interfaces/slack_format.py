"""Markdown → Slack mrkdwn, message splitting, and Slack text → plain question text.

Slack's mrkdwn is not Markdown: `*x*` is bold, `_x_` italic, links are `<url|label>`, there are
no headings or tables, and `&`, `<`, `>` must be escaped as HTML entities. Answers from the
advisor are Markdown, so every outgoing message passes through ``to_mrkdwn`` and ``split_message``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# Slack's limit for a section block's text: every part of an answer is split to fit one (the fence we may add when a
# code block is split included), so any part, the last above all, can carry blocks such as the proposal button.
MESSAGE_LIMIT = 3000
FENCE = "```"

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # our placeholders use these, so input may not
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_QUOTE = re.compile(r"^(\s*)>\s?(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
# Protected inline pieces: backslash escapes, code spans, [label](url) links and <url> autolinks.
_INLINE_TOKEN = re.compile(
    r"\\(?P<escaped>[\\`*_{}\[\]()#+\-.!|~<>])"
    r"|(?P<code>`+)(?P<code_body>.+?)(?P=code)"
    r"|!?\[(?P<label>[^\]]*)\]\((?P<url>[^)\s]+)(?:\s+\"[^\"]*\")?\)"
    r"|<(?P<autolink>(?:https?://|mailto:)[^>\s]+)>"
)
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_BOLD_MARK = "\x01"  # stands for Slack's `*` until italics (which also use `*` in Markdown) are done
_SLOT = re.compile("\x02(\\d+)\x03")


def escape(text: str) -> str:
    """Slack's three control characters; everything else is literal."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_mrkdwn(markdown: str) -> str:
    """Convert the advisor's Markdown to Slack mrkdwn, line by line, with fences and tables as blocks."""
    lines = _CONTROL.sub("", markdown).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(FENCE):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].lstrip().startswith(FENCE)), len(lines))
            # Slack shows a language tag after the fence as code text, so it is dropped.
            out += [FENCE, *(escape(body) for body in lines[i + 1 : end]), FENCE]
            i = end + 1
        elif "|" in line and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1]):
            end = i + 2
            while end < len(lines) and "|" in lines[end] and lines[end].strip():
                end += 1
            out += table_block(lines[i], lines[i + 1], lines[i + 2 : end])
            i = end
        else:
            out.append(_convert_line(line))
            i += 1
    return "\n".join(out)


def _convert_line(line: str) -> str:
    if heading := _HEADING.match(line):
        return f"*{escape(plain_inline(heading.group(1)))}*" if heading.group(1) else ""
    if _RULE.match(line):
        return "──────────"
    if quote := _QUOTE.match(line):
        return f"{quote.group(1)}> {convert_inline(quote.group(2))}"
    if bullet := _BULLET.match(line):
        return f"{bullet.group(1)}• {convert_inline(bullet.group(2))}"
    return convert_inline(line)


def convert_inline(text: str) -> str:
    """Emphasis, code spans and links inside one line, with everything else escaped."""
    slots: list[str] = []

    def protect(match: re.Match[str]) -> str:
        if match.group("escaped") is not None:
            rendered = escape(match.group("escaped"))
        elif match.group("code") is not None:
            rendered = f"`{escape(match.group('code_body').strip())}`"
        elif match.group("autolink") is not None:
            rendered = slack_link(match.group("autolink"), "")
        else:
            rendered = slack_link(match.group("url"), plain_inline(match.group("label")))
        slots.append(rendered)
        return f"\x02{len(slots) - 1}\x03"

    text = escape(_INLINE_TOKEN.sub(protect, text))
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(1) or m.group(2)}{_BOLD_MARK}", text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text).replace(_BOLD_MARK, "*")
    return _SLOT.sub(lambda m: slots[int(m.group(1))], text)


def slack_link(url: str, label: str) -> str:
    """`<url|label>` for web links; a relative or odd URL cannot be clicked in Slack, so only the label is kept."""
    if not url.startswith(("http://", "https://", "mailto:")):
        return escape(label or url)
    url = escape(url.replace("|", "%7C"))
    return f"<{url}|{escape(label)}>" if label else f"<{url}>"


def plain_inline(text: str) -> str:
    """Markdown inline text with its markup removed (for headings, link labels and table cells)."""
    text = _INLINE_TOKEN.sub(
        lambda m: m.group("escaped") or m.group("code_body") or m.group("autolink") or m.group("label") or "", text
    )
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2), text)
    return _STRIKE.sub(r"\1", _ITALIC.sub(r"\1", text)).strip()


def display_width(text: str) -> int:
    """Columns in a monospace font: CJK characters take two, so Chinese tables still line up."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in text)


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row.removeprefix("|")
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [plain_inline(cell.strip()) for cell in _CELL_SPLIT.split(row)]


def table_block(header: str, separator: str, rows: Sequence[str]) -> list[str]:
    """A Markdown table as a code block with aligned columns (Slack has no tables)."""
    table = [_cells(header), *(_cells(row) for row in rows)]
    specs = [s.strip() for s in _CELL_SPLIT.split(separator.strip().strip("|"))]
    columns = max(len(r) for r in table)
    table = [r + [""] * (columns - len(r)) for r in table]
    widths = [max(display_width(r[c]) for r in table) for c in range(columns)]

    def pad(text: str, column: int) -> str:
        spec = specs[column] if column < len(specs) else ""
        gap = widths[column] - display_width(text)
        if spec.endswith(":") and spec.startswith(":"):
            return " " * (gap // 2) + text + " " * (gap - gap // 2)
        return " " * gap + text if spec.endswith(":") else text + " " * gap

    lines = [" | ".join(pad(cell, c) for c, cell in enumerate(row)).rstrip() for row in table]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return [FENCE, *(escape(line) for line in lines), FENCE]


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Split mrkdwn into messages of at most ``limit`` characters, on line boundaries where possible.

    A code block cut in two is closed at the end of one message and reopened in the next, so
    both halves still render as code.
    """
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    in_code = False
    reserve = len(FENCE) + 1  # room to close an open fence

    def flush() -> None:
        nonlocal current, size
        body = "\n".join(current).strip("\n")
        if body and body != FENCE:
            chunks.append(body + ("\n" + FENCE if in_code else ""))
        current = [FENCE] if in_code else []
        size = len(FENCE) if in_code else 0

    for line in text.splitlines():
        for piece in _hard_wrap(line, limit - 2 * reserve):
            closes_code = in_code and piece.strip().startswith(FENCE)  # `reserve` already made room for it
            if current and not closes_code and size + 1 + len(piece) + reserve > limit:
                flush()
            current.append(piece)
            size += len(piece) + (1 if size else 0)
        if line.strip().startswith(FENCE):
            in_code = not in_code
    in_code = False
    flush()
    return chunks


def _hard_wrap(line: str, width: int) -> list[str]:
    """A single line longer than a message is cut at the last space before ``width``, else at ``width``."""
    pieces = []
    while len(line) > width:
        cut = line.rfind(" ", width // 2, width)
        cut = cut if cut > 0 else width
        pieces.append(line[:cut])
        line = line[cut:].lstrip(" ")
    return [*pieces, line]


_SLACK_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")


def slack_to_plain(text: str) -> str:
    """Text as Slack delivers it → what the user typed: mentions dropped, links unwrapped, entities decoded."""

    def unwrap(match: re.Match[str]) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith(("@", "!")):  # user mentions, @here/@channel: noise for the advisor
            return ""
        if target.startswith("#"):
            return f"#{label}" if label else ""
        return label or target

    text = _SLACK_LINK.sub(unwrap, text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return re.sub(r"[ \t]{2,}", " ", text).strip()
