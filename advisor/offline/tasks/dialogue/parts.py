"""A message that asks several questions: each part's verdict, numbered, in one opening line, so the first screen
answers all of them; the parts follow, each with its own answer."""

from __future__ import annotations

from advisor.offline.wording import Wording
from advisor.offline.turn import Turn

WORDING = Wording("dialogue/parts_text.yaml")
VERDICT_CHARS = 160  # one line of the opening per part; the part's own answer below has the rest
SENTENCE_ENDS = ("。", "！", "？", ". ", "! ", "? ")
NOT_A_VERDICT = ("🧮", "📌", "|", "- ", "```")  # an offer, a noted value, a table, a list, a command: not the answer


def verdict_of(body: str) -> str:
    """The first sentence of an answer: past a bold title line, plain (no bold), cut to one line."""
    for paragraph in body.split("\n\n"):
        line = paragraph.strip().split("\n")[0].strip()
        if not line or line.startswith(NOT_A_VERDICT) or (line.startswith("**") and line.endswith("**") and line.count("**") == 2):
            continue
        plain = line.replace("**", "").replace("__", "")
        ends = [plain.find(end) for end in SENTENCE_ENDS if end in plain]
        sentence = plain[: min(ends) + 1] if ends else plain
        return sentence if len(sentence) <= VERDICT_CHARS else sentence[: VERDICT_CHARS - 1].rstrip() + "…"
    return ""


def combined(turn: Turn, bodies: list[str]) -> str:
    """The opening line: "In short: (1) … (2) …" from each part's first sentence."""
    verdicts = [WORDING.say(turn, "verdict", index=index, verdict=verdict)
                for index, body in enumerate(bodies, 1) if (verdict := verdict_of(body))]  # fmt: skip
    if len(verdicts) < 2:
        return ""
    return WORDING.say(turn, "combined", verdicts=WORDING.say(turn, "joiner").join(verdicts))
