"""A claim or a substitution between two parts ("eight 4090s beat an H100 server", "can an L20 stand in for an A100?"):
the verdict on like-for-like figures first (``check_gpu_claim``), then where a bigger pitched number comes from, the
link and licence limits, what to buy when, and, if a model and job are named, the job itself sized and timed on both."""

from __future__ import annotations

from advisor.markdown import number, table
from advisor.offline.tasks.recommend import mainland
from advisor.offline.tasks.specs import compare
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from tools.recommend.claim import FP8_TRAINING_SOURCE

WORDING = Wording("recommend", "claim")
DRAWBACK_FIGURE = {"no_scale_up_link": "link", "consumer_licence": "licence", "no_bf16": "bf16"}  # the figure each limit loses on


def _side_args(turn: Turn, gpu: str, count: int | None) -> dict:
    """"one DGX H100", "an H100 box": a part named as one server is counted as its board (the tool knows which parts sit on one)."""
    one_server = turn.ask.whole_server and count in (None, 1)
    return {"gpu": gpu, "count": None if one_server else count, "whole_server": one_server}


def _label(turn: Turn, side: dict) -> str:
    return WORDING.say(turn, "side", count=side["count"], name=side["name"])


def _ahead_behind(turn: Turn, r: dict) -> tuple[str, str]:
    ratios = {"compute": r["compute_ratio"] or 0.0, "memory": r["memory_ratio"], "bandwidth": r["bandwidth_ratio"]}
    ahead = [key for key, ratio in ratios.items() if ratio >= 1]
    behind = [key for key, ratio in ratios.items() if ratio < 1] + [DRAWBACK_FIGURE[d] for d in r["drawbacks"]]
    joiner = WORDING.say(turn, "joiner")
    return (joiner.join(WORDING.say(turn, f"figure.{k}") for k in ahead), joiner.join(WORDING.say(turn, f"figure.{k}") for k in behind))


def _table(turn: Turn, r: dict, proposed: str, incumbent: str) -> str:
    p, i = r["proposed"], r["incumbent"]
    pcie = WORDING.say(turn, "pcie_only")
    rows = [
        ("bf16_card", number(p["bf16_tflops_card"]), number(i["bf16_tflops_card"])),
        ("bf16_total", number(p["bf16_tflops_total"]), number(i["bf16_tflops_total"])),
        ("headline", _headline_cell(turn, p), _headline_cell(turn, i)),
        ("memory_card", number(p["memory_gb_card"]), number(i["memory_gb_card"])),
        ("memory_total", number(p["memory_gb_total"]), number(i["memory_gb_total"])),
        ("bandwidth_total", number(p["bandwidth_tb_s_total"], 2), number(i["bandwidth_tb_s_total"], 2)),
        ("link", number(p["scale_up_gbs"]) if p["scale_up_gbs"] else pcie, number(i["scale_up_gbs"]) if i["scale_up_gbs"] else pcie),
    ]
    head = [WORDING.say(turn, "figure_column"), proposed, incumbent]
    return table(head, [(WORDING.say(turn, f"rows.{key}"), a, b) for key, a, b in rows])


CLAIM_REACHED = 0.9  # a claimed multiple within 10 % of a figure's ratio is in the figures


def _claimed_multiple(turn: Turn, r: dict) -> tuple[str, list[str]]:
    """ "Is the B200 really 30x an H100?": the multiple claimed set against every like-for-like ratio of the two sides;
    the spec-sheet headline (a low-precision, sparse peak) against dense BF16 is named apart, as no like for like."""
    claimed = turn.ask.claimed_multiple
    if claimed is None or claimed <= 1:
        return "", []
    ratios = {"compute": r["compute_ratio"] or 0.0, "bandwidth": r["bandwidth_ratio"], "memory": r["memory_ratio"], "headline": r["headline_ratio"] or 0.0}
    like = max(ratios["compute"], ratios["bandwidth"], ratios["memory"])
    key = "reached" if like >= CLAIM_REACHED * claimed else "headline_only" if ratios["headline"] >= CLAIM_REACHED * claimed else "beyond"
    verdict = WORDING.say(turn, f"claimed.{key}", claimed=number(claimed), best=number(like, 2), **{k: number(v, 2) for k, v in ratios.items()})
    return verdict, [] if key == "reached" else [WORDING.say(turn, "claimed.beyond_why")]


def _sheet_figures(turn: Turn, side: dict) -> str:
    """"H100 SXM 989.5 dense BF16, 1,979 BF16 with 2:4 sparsity, ...": every figure the spec sheet prints for one card."""
    keys = (("bf16", "bf16_tflops_card"), ("bf16_sparse", "bf16_sparse_card"), ("fp8", "fp8_tflops_card"), ("fp8_sparse", "fp8_sparse_card"))
    figures = [WORDING.say(turn, f"sheet_figure.{key}", tflops=number(side[field])) for key, field in keys if side.get(field)]
    if not side.get("fp8_tflops_card"):
        figures.append(WORDING.say(turn, "sheet_figure.no_fp8"))
    return WORDING.say(turn, "sheet_side", name=side["name"], figures=turn.t(", ", "、").join(figures))


def _real_range(turn: Turn, r: dict) -> list[str]:
    """What each printed number is, and the end-to-end range card for card (bandwidth-bound to compute-bound, FP8 on top)."""
    lines = [WORDING.say(turn, "sheet", sides=turn.t("; ", "；").join(_sheet_figures(turn, side) for side in (r["proposed"], r["incumbent"])))]
    if r["decode_ratio"] and r["compute_card_ratio"]:
        lines.append(WORDING.say(turn, "end_to_end", decode=number(r["decode_ratio"], 2), compute=number(r["compute_card_ratio"], 2)))
    if r["fp8_high"]:
        low, high = r["fp8_gain"]
        lines.append(WORDING.say(turn, "end_to_end_fp8", name=r["proposed"]["name"], gain_low=number(low, 2), gain_high=number(high, 2),
                                 fp8_high=number(r["fp8_high"], 1)))
        turn.cite("fp8-training-gain", *FP8_TRAINING_SOURCE[:1], urls=[FP8_TRAINING_SOURCE[1]])
    return lines


def _headline_cell(turn: Turn, side: dict) -> str:
    if side["headline_tflops_card"] is None:
        return "—"
    sparse = WORDING.say(turn, "sparse") if side["headline_sparse"] else ""
    return f"{number(side['headline_tflops_card'])} ({side['headline_precision'].upper()}{sparse})"


def answer(turn: Turn) -> str:
    pairs = compare.options(turn)[:2]
    turn.slots.mark("gpu", "gpu_count")
    turn.entities.mark("gpu", "gpu_count")
    outcome = turn.call("check_gpu_claim", {"proposed": _side_args(turn, *pairs[0]), "incumbent": _side_args(turn, *pairs[1])})
    if not outcome.ok:
        return turn.error(outcome)
    r = outcome.result
    p, i = r["proposed"], r["incumbent"]
    proposed, incumbent = _label(turn, p), _label(turn, i)
    for (_, count), side in zip(pairs, (p, i)):
        if count is None or count != side["count"]:
            key = "assumed_server" if side["count"] > 1 else "assumed_one"
            turn.assume(*WORDING.both(key, name=side["name"], count=side["count"]))
    ahead, behind = _ahead_behind(turn, r)
    claimed, why = _claimed_multiple(turn, r)
    lead = WORDING.say(turn, "claimed.figures" if claimed else f"verdict.{r['verdict']}", proposed=proposed, incumbent=incumbent, ahead=ahead, behind=behind,
                       p_tflops=number(p["bf16_tflops_total"]), i_tflops=number(i["bf16_tflops_total"]), compute=number(r["compute_ratio"], 2),
                       p_mem=number(p["memory_gb_total"]), i_mem=number(i["memory_gb_total"]), memory=number(r["memory_ratio"], 2))
    if claimed:  # "is the B200 really 30x an H100?": the multiple is the question, so its verdict leads and the figures follow
        lead, lines = f"**{claimed}**", [*why, lead]
    else:
        lines = []
    if r["headline_ratio"] is not None and r["headline_ratio"] >= 1 and p["headline_precision"] != "bf16":  # a multiple a pitch can lean on
        sparse = p["headline_sparse"]
        lines.append(WORDING.say(turn, "headline", name=p["name"], tflops=number(p["headline_tflops_card"]), precision=p["headline_precision"].upper(),
                                 sparse=WORDING.say(turn, "sparse") if sparse else "", ratio=number(r["headline_ratio"], 2),
                                 sparse_again=WORDING.say(turn, "sparse_again") if sparse else ""))
    lines.append(WORDING.say(turn, "bandwidth", p_bw=number(p["bandwidth_tb_s_total"], 2), i_bw=number(i["bandwidth_tb_s_total"], 2),
                             ratio=number(r["bandwidth_ratio"], 2)))
    # a multiple was quoted: what each printed number is and the range a job really sees, right under the verdict
    real = "\n\n".join(_real_range(turn, r)) if claimed else ""
    for drawback in r["drawbacks"]:
        lines.append(WORDING.say(turn, drawback, proposed_name=p["name"], incumbent_name=i["name"], gbs=number(i["scale_up_gbs"])))
    job = compare.route(turn)  # a model named: each side sized and timed for that job
    choose = WORDING.say(turn, "options", proposed=proposed, incumbent=incumbent, p_card=number(p["memory_gb_card"]))
    if claimed:  # a multiple checked is no choice between a cheaper and a like-for-like side
        choose = ""
    # the verdict answers "is it true?"; a mainland buyer then hears which side cannot be bought new there
    parts = [lead, real, *mainland.blocked_of(turn, [p["gpu_id"], i["gpu_id"]]), "\n".join(f"- {line}" for line in lines),
             choose if job or not choose else choose + " " + WORDING.say(turn, "ask_job")]  # fmt: skip
    if job:
        parts.append(WORDING.say(turn, "job") + "\n\n" + job)
    parts.append(_table(turn, r, proposed, incumbent))
    return "\n\n".join(part for part in parts if part)
