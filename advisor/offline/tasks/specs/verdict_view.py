"""The first line of a spec comparison from compare_gpus' verdict: the better card for the job asked and the figure that
decides it (bandwidth for serving, dense compute for training, memory for a fine-tune that must fit), with the other
card's strengths in one line; with no job, the difference that matters and which card each job would take. Wording
from the package text.yaml (section verdict); every figure from the tool."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.gpu_specs import BRIDGED_PAIR, FIGURE_FIELDS, JOB_FIGURES

WORDING = Wording("specs", "verdict")
SHOWN_EDGES = 2  # differences named in a jobless lead; the table shows the rest


def edge_text(turn: Turn, edge: dict, names: dict[str, str]) -> str:
    """One difference in words: "1.68× the memory bandwidth (3,350 vs 2,000 GB/s)", or what the other card lacks."""
    mine, theirs = number(edge["leader_value"]), number(edge["other_value"]) if edge["other_value"] else ""
    if edge["ratio"] is None:
        return WORDING.say(turn, f"lacks.{edge['figure']}", mine=mine, other=names[edge["other"]])
    return WORDING.say(turn, f"edge.{edge['figure']}", ratio=number(edge["ratio"], 2), mine=mine, theirs=theirs)


def lead(turn: Turn, result: dict) -> str:
    """The verdict line and, below it, the other card's strengths and the price ratio; "" when the tool gave none."""
    verdict = result.get("verdict")
    if not verdict:
        return ""
    names = {r["gpu"]["id"]: r["gpu"]["name"] for r in result["rows"]}
    edges = verdict["edges"]
    joiner = WORDING.say(turn, "joiner")
    lines = []
    if verdict["job"]:
        job = WORDING.say(turn, f"job.{verdict['job']}")
        if verdict.get("cards_per_job") and verdict["cards_per_job"] > BRIDGED_PAIR:  # "for training across 8 cards"
            job = WORDING.say(turn, "across", job=job, cards=verdict["cards_per_job"])
        if verdict["pick"]:
            decided = edges[0]
            lines.append(WORDING.say(turn, "lead.job_pick", job=job, pick=names[verdict["pick"]], edge=edge_text(turn, decided, names),
                                     why=_why(turn, verdict["job"], decided["figure"], verdict.get("cards_per_job"))))
        else:
            a, b = list(names.values())[:2]
            lines.append(WORDING.say(turn, "lead.job_even", job=job, a=a, b=b))
    else:
        lines.append(_jobless(turn, verdict, names, joiner))
    if verdict["pick"]:
        theirs = [e for e in edges if e["leader"] == verdict["other"]]
        if theirs:
            lines.append(WORDING.say(turn, "other_side", other=names[verdict["other"]], edges=joiner.join(edge_text(turn, e, names) for e in theirs)))
        if verdict["price_ratio"]:
            lines.append(WORDING.say(turn, "price", ratio=number(verdict["price_ratio"], 2), other=names[verdict["other"]]))
    lines += _unverified(turn, result, edges[:SHOWN_EDGES])
    return lines[0] + ("\n\n" + turn.t(" ", "").join(lines[1:]) if len(lines) > 1 else "")


def _why(turn: Turn, job: str, figure: str, cards: int | None = None) -> str:
    """Why ``figure`` decides ``job``: the reason for a job spread over many cards, else the job's own reason where the
    figure's general one speaks of another job."""
    if cards and cards > BRIDGED_PAIR and figure in WORDING.data["why_across"]:
        return WORDING.say(turn, f"why_across.{figure}", cards=cards)
    key = f"why_for_job.{job}.{figure}" if figure in WORDING.data["why_for_job"].get(job, {}) else f"why.{figure}"
    return WORDING.say(turn, key)


def _unverified(turn: Turn, result: dict, edges: list[dict]) -> list[str]:
    """A note for each figure the verdict leans on that a card's row keeps as unverified (knowledge/fact_gaps.yaml): the
    reader hears which number no source we hold confirms."""
    gpus = {r["gpu"]["id"]: r["gpu"] for r in result["rows"]}
    notes = []
    for edge in edges:
        field = FIGURE_FIELDS[edge["figure"]]
        for card in (edge["leader"], edge["other"]):
            if field in gpus[card].get("unverified", ()):
                notes.append(WORDING.say(turn, "unverified", card=gpus[card]["name"], name=WORDING.say(turn, f"figure_name.{edge['figure']}")))
    return list(dict.fromkeys(notes))


def _jobless(turn: Turn, verdict: dict, names: dict[str, str], joiner: str) -> str:
    edges = verdict["edges"]
    serving, training = verdict["best_for_serving"], verdict["best_for_training"]
    by_figure = {e["figure"]: e for e in edges}

    def shown(leader: str, order: tuple[str, ...]) -> str:
        """The first figure of the job's order that differs: the one that made ``leader`` that job's card."""
        return next(edge_text(turn, by_figure[f], names) for f in order if f in by_figure and by_figure[f]["leader"] == leader)

    serving_order, training_order = JOB_FIGURES["inference"], JOB_FIGURES["training"]
    if verdict["pick"] and serving and training:
        mine = [edge_text(turn, e, names) for e in edges if e["leader"] == verdict["pick"]][:SHOWN_EDGES]
        return WORDING.say(turn, "lead.both", pick=names[verdict["pick"]], edges=joiner.join(mine))
    if serving and training:
        return WORDING.say(turn, "lead.split", serving=names[serving], training=names[training],
                           serving_edge=shown(serving, serving_order), training_edge=shown(training, training_order))
    if training:
        return WORDING.say(turn, "lead.training_only", training=names[training], training_edge=shown(training, training_order))
    if serving:
        return WORDING.say(turn, "lead.serving_only", serving=names[serving], serving_edge=shown(serving, serving_order))
    return WORDING.say(turn, "lead.even")
