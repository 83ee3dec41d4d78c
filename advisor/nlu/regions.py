"""Where the servers run, as the user places them ("we're in Frankfurt", "hosted in Singapore"): the region whose electricity
and colocation prices a cost answer uses. The words live with the prices (knowledge/region_tariffs.yaml) and are
matched as the Ask's cue words are."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from advisor.name_matcher import normalize_text
from advisor.nlu.facets import cue_pattern
from knowledge.region_tariffs import region_tariffs


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern[str]]:
    return {region: cue_pattern(entry.words) for region, entry in region_tariffs().root.items()}


def site_region(texts: Sequence[str]) -> str | None:
    """The region the newest message that places the servers names; in one message, the one named last (a team "in
    Singapore hosting in Frankfurt" pays Frankfurt's power)."""
    for text in reversed([t for t in texts if isinstance(t, str)]):
        plain = normalize_text(text)
        found = [(match.end(), region) for region, pattern in _patterns().items() for match in pattern.finditer(plain)]
        if found:
            return max(found)[1]
    return None
