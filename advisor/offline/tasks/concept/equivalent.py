"""Another vendor's or market's part in place of a named one: "Huawei's answer to the H100?", "which domestic part matches the A100?"
(the closest parts, found by the find_equivalents tool), or "can the 910B replace our A100s for training, and what
does the port cost?" (the named substitute judged for the job). The lead says which part and how far off it is; then
the key figures side by side, whether each can be bought in the asker's market, and the software side of moving
between a domestic part and a CUDA one, from its card. Words and thresholds: knowledge/equivalents.yaml."""

from __future__ import annotations

from advisor.labels import CHINA_STATUS
from advisor.markdown import number, table
from advisor.offline.tasks.concept import plan
from advisor.offline.tasks.concept.compliance import rule_line
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import load_concepts
from knowledge.equivalents import Job, equivalents

WORDING = Wording("concept", "equivalent")
CHINA = "cn"


def answer(turn: Turn) -> str:
    sides = plan.equivalent_sides(turn)
    if sides is None:
        return ""
    part_id, substitutes, vendors = sides
    outcome = turn.call("find_equivalents", {"gpu": part_id, "vendors": vendors, "candidates": substitutes})
    if not outcome.ok:
        return turn.error(outcome)
    result = outcome.result
    part, parts = result["gpu"], result["parts"]
    if not parts:
        return WORDING.say(turn, "none_found", part=part["name"], vendors=turn.text(equivalents().side_label(vendors)))
    best = parts[0]
    lead = _substitute_lead(turn, part, best) if not result["searched"] else _closest_lead(turn, part, best, vendors)
    blocks = [lead, *_caveats(turn, part, best)]
    blocks.append(table([WORDING.say(turn, "figure"), part["name"], *[p["gpu"]["name"] for p in parts]], _rows(turn, part, parts)))
    blocks.extend(_market_lines(turn, [part, *[p["gpu"] for p in parts]]))
    blocks.extend(_software(turn, [part, *[p["gpu"] for p in parts]]))
    for gpu in [part, *[p["gpu"] for p in parts]]:
        turn.cite_gpu(gpu)
    blocks.append("🧮 " + WORDING.say(turn, "offer"))
    return "\n\n".join(blocks)


def _pct(share: float | None) -> str:
    return number(share * 100, 0) if share else "—"


def _compute(gpu: dict) -> float | None:
    return gpu["bf16_tflops"] or gpu["fp16_tflops"]


def _figures(part: dict, matched: dict) -> dict[str, str]:
    gpu, share = matched["gpu"], matched["share"]
    return {
        "part": part["name"], "candidate": gpu["name"], "pct": _pct(share["bf16"]),
        "c_tflops": number(_compute(gpu) or 0), "p_tflops": number(_compute(part) or 0),
        "c_memory": number(gpu["memory_gb"]), "p_memory": number(part["memory_gb"]),
        "c_bandwidth": number(gpu["bandwidth_gbs"], 0), "p_bandwidth": number(part["bandwidth_gbs"], 0),
    }  # fmt: skip


def _closest_lead(turn: Turn, part: dict, best: dict, vendors: list[str]) -> str:
    side = turn.text(equivalents().side_label(vendors))
    return WORDING.say(turn, "closest", side=side, **_figures(part, best))


def _job(turn: Turn) -> Job | None:
    activity = turn.ask.named.get("activity", frozenset())
    return "training" if "training" in activity else "serving" if "serving" in activity else None


def _substitute_lead(turn: Turn, part: dict, matched: dict) -> str:
    """Yes / partly / no for the job named (training leans on compute, serving on bandwidth; neither named: the weaker of both)."""
    rules, share, job = equivalents().verdict, matched["share"], _job(turn)
    figures = [rules.of(job).figure] if job else ["bf16", "bandwidth"]
    shares = [share[figure] for figure in figures if share[figure]]
    rule = rules.of(job or "training")
    weakest = min(shares) if shares else 0
    verdict = "full" if weakest >= rule.full else "partly" if weakest >= rule.partly else "no"
    if verdict == "full" and share["memory"] and share["memory"] < rules.memory_full:
        verdict = "partly"
    job_words = WORDING.say(turn, f"jobs.{job or 'any'}")
    return WORDING.say(turn, f"verdict.{verdict}", job=job_words, **_figures(part, matched))


def _caveats(turn: Turn, part: dict, matched: dict) -> list[str]:
    gpu, share, lines = matched["gpu"], matched["share"], []
    if share["memory"] and share["memory"] < 1:
        lines.append(WORDING.say(turn, "less_memory", **_figures(part, matched)))
    if part["fp8_tflops"] and not gpu["fp8_tflops"]:
        lines.append(WORDING.say(turn, "no_fp8", candidate=gpu["name"], part=part["name"]))
    return lines


def _rows(turn: Turn, part: dict, parts: list[dict]) -> list[list[str]]:
    gpus = [part, *[p["gpu"] for p in parts]]
    shares = [None, *[p["share"] for p in parts]]

    def with_share(value: str, share: dict | None, key: str) -> str:
        return f"{value} ({_pct(share[key])}%)" if share and share[key] else value

    label = WORDING.entry("rows")
    row = lambda key: turn.text(label[key])  # noqa: E731
    return [
        [row("bf16"), *[with_share(number(_compute(g)) if _compute(g) else "—", s, "bf16") for g, s in zip(gpus, shares, strict=True)]],
        [row("fp8"), *[number(g["fp8_tflops"]) if g["fp8_tflops"] else "—" for g in gpus]],
        [row("memory"), *[with_share(f"{number(g['memory_gb'])} GB {g['memory_type']}", s, "memory") for g, s in zip(gpus, shares, strict=True)]],
        [row("bandwidth"), *[with_share(f"{number(g['bandwidth_gbs'], 0)} GB/s", s, "bandwidth") for g, s in zip(gpus, shares, strict=True)]],
        [row("link"), *[g["interconnect"] for g in gpus]],
        [row("power"), *[f"{number(g['tdp_w'], 0)} W" if g["tdp_w"] else "—" for g in gpus]],
    ]


def _market_lines(turn: Turn, gpus: list[dict]) -> list[str]:
    """Whether each part can be bought where the asker is: the mainland-China status and its dated rule for a buyer
    there; what a buyer elsewhere must know about a vendor's parts (Ascend abroad) otherwise."""
    if turn.ask.market == CHINA:
        lines = [rule_line(turn, turn.catalog.gpu(gpu["id"]), turn.t(*CHINA_STATUS[gpu["china"]])) for gpu in gpus if gpu["china"]]
        return [WORDING.say(turn, "china_market") + "\n" + "\n".join(lines)] if lines else []
    notes = []
    for vendor in dict.fromkeys(gpu["vendor"] for gpu in gpus):
        note = equivalents().abroad.get(vendor)
        if note is not None:
            notes.append(turn.text(note.text))
            turn.cite(f"abroad:{vendor}", note.source.cited, urls=[note.source.url])
    return notes


def _software(turn: Turn, gpus: list[dict]) -> list[str]:
    """Moving between a domestic part and a CUDA one: the card on what ports and what must be redone, cited."""
    table_ = equivalents()
    domestic = [gpu["vendor"] for gpu in gpus if table_.is_domestic(gpu["vendor"])]
    if not domestic or len(domestic) == len(gpus):
        return []
    card = load_concepts().card(table_.software_cards[domestic[0]]) if domestic[0] in table_.software_cards else None
    if card is None:
        return []
    for source in card.sources:
        turn.cite(f"{CARD_PREFIX}{card.id}:{source.url}", source.cited, urls=[source.url])
    return [WORDING.say(turn, "software") + f"**{card.title.pick(turn.language)}**\n\n{card.answer.pick(turn.language)}"]
