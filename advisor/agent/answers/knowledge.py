"""How/why questions answered from the curated knowledge base, with citations."""

from __future__ import annotations

from advisor.agent.turn import Turn
from advisor.contract import Source

SHOWN_HITS = 3


def answer(turn: Turn) -> str:
    outcome = turn.call("search_knowledge", {"query": turn.message[:2000], "k": SHOWN_HITS, "language": turn.language})
    if not outcome.ok:
        return turn.error(outcome)
    hits = outcome.result["hits"]
    if not hits:
        return turn.t(
            "I found nothing on that in my knowledge base. Try asking about GPU choice, memory, cost, or a specific error.",
            "知识库里没有找到相关内容。可以问我选卡、显存、成本或具体报错方面的问题。",
        )
    parts = [turn.t("From the GPU Advisor knowledge base:", "以下内容来自 GPU Advisor 知识库：")]
    for hit in hits:
        parts.append(f"**{hit['title']} — {hit['section']}**\n\n{hit['snippet']}")
        turn.cite_source(Source.from_hit(hit))
    return "\n\n".join(parts)




def related(turn: Turn, query: str, k: int = 2) -> None:
    """Cite the guidance docs most related to a tool answer, so every answer points somewhere to read more."""
    outcome = turn.call("search_knowledge", {"query": query[:2000], "k": k, "language": turn.language})
    for hit in (outcome.result or {}).get("hits", []):
        turn.cite_source(Source.from_hit(hit))
