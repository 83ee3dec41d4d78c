"""The CJK font the PDF and the charts draw Chinese with: installed by the project's set-up, never downloaded."""

from __future__ import annotations

import os
from pathlib import Path

from advisor.proposal.wording import facts, texts
from knowledge.bilingual import AdvisorError

FONT_VARIABLE = "ADVISOR_CJK_FONT"


class FontMissing(AdvisorError):
    pass


def cjk_font() -> Path:
    """The first CJK font present; a clear bilingual error naming the package to install otherwise."""
    override = os.environ.get(FONT_VARIABLE)
    candidates = [override] if override else facts()["cjk_fonts"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    words = texts()["font_missing"]
    package = facts()["cjk_font_package"]
    tried = ", ".join(str(c) for c in candidates)
    raise FontMissing("cjk_font_missing", words["en"].format(package=package, tried=tried, variable=FONT_VARIABLE),
                      words["zh"].format(package=package, tried=tried, variable=FONT_VARIABLE))  # fmt: skip
