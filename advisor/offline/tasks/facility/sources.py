"""The pages a facility answer cites: each figure's source and the cooling limits', once per answer."""

from __future__ import annotations

from advisor.contract import Source
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.facility import shipped_facility_data

FACILITY_SOURCES = Wording("facility", "facility_sources")


def cite(turn: Turn, r: dict) -> None:
    """The pages behind a plan's figures and the cooling limits, each once."""
    seen = {u for s in turn.sources for u in s.urls}
    for f in r["figures"]:
        if f.get("url") and f["url"] not in seen:
            seen.add(f["url"])
            turn.sources.append(Source(doc_id=f"facility:{f['key']}", title=f["title"], urls=[f["url"]]))
    for source in shipped_facility_data().cooling.sources:
        if source.url not in seen:
            seen.add(source.url)
            turn.sources.append(Source(doc_id="facility:cooling", title=source.title, urls=[source.url]))


def cite_socket(turn: Turn, socket) -> None:
    """The pages behind the wall socket's rating a plan took for the feeds, once; a rating that rests on a secondary
    page says so beside its title."""
    title = socket.source.title
    if socket.source_quality == "secondary":
        title = FACILITY_SOURCES.say(turn, "secondary_source", title=title)
    for doc_id, page, name in (("facility:wall_socket", socket.source, title), ("facility:wall_socket_standard", socket.standard, None)):
        if page is not None and all(page.url not in s.urls for s in turn.sources):
            turn.sources.append(Source(doc_id=doc_id, title=name or page.title, urls=[page.url]))
