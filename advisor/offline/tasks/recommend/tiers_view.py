"""The recommender's three tiers (recommended, budget, room to grow) as answer lines; the wording is data
(knowledge/servers.yaml, tier_text)."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.tasks.recommend.price_view import option_price
from advisor.offline.turn import Turn
from knowledge.servers import server_data


def tier_lines(turn: Turn, r: dict) -> list[str]:
    """One line per tier (recommended, budget, room to grow): what to buy, the server, the whole price, speed, why."""
    if not r.get("tiers") or r.get("objective"):
        return []
    text = server_data().tier_text
    lines = []
    for tier in r["tiers"]:
        o = tier["option"]
        speed = o.get("tokens_per_s_per_user")
        filled = {
            "label": turn.text(tier["label"]),
            "config": f"{o['count']}× {o['gpu_name']}" if o["sold_as"] in ("server", "pair") else turn.text(o["config_label"]),
            "server": turn.text(o["server_label"]) if o.get("server_label") else "",
            "price": option_price(turn, o, r["currency"]),
            "reason": _sentence(turn.text(tier["reason"])),
            "speed_en": text.speed.en.format(speed=number(speed)) if speed else "",
            "speed_zh": text.speed.zh.format(speed=number(speed)) if speed else "",
        }
        template = text.line if o.get("server_label") else text.line_no_server
        lines.append("- " + turn.text(template).format(**filled))
    return ["\n".join(lines) + "\n\n_" + turn.text(text.price_basis) + "_"]


def _sentence(text: str) -> str:
    """The reason starts a sentence of its own in the line."""
    return text[:1].upper() + text[1:]
