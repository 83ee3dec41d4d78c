"""“Is X worth the premium over Y?”: the value of the dearer of two named parts against the cheaper one.

With a model named, each part is taken as the smallest configuration on sale that holds the job (``recommend_gpus``
with that part only: whole-configuration price with the server, speed, memory headroom), and the verdict sets the price
premium against the gain in output (tokens/s for serving, dense compute for training) per unit of money. Without a model,
the per-card figures of ``compare_gpus`` and ``check_gpu_claim`` are set against the price of the same-size whole machine
of each (``estimate_server_price`` at the smallest count either is sold in; the card price when one has none): bandwidth
for serving, compute for training, memory for what fits. A buyer in mainland China is told, right after the verdict, which side cannot be
bought new there, with the rule the catalog derives from the export rules. Every figure comes from a tool; the
wording is this package's text.yaml, section ``premium``."""

from __future__ import annotations

from advisor.markdown import money, number, table
from advisor.offline.tasks.recommend import mainland
from advisor.offline.tasks.specs import compare
from advisor.offline.tasks.tco import price_dates
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.offline.workload import TASK_LABEL, model_of, precision_for, task_of
from tools.recommend.configs import sold_count_from

WORDING = Wording("recommend", "premium")
SAME = 0.05  # value per unit of money within 5 %: neither side is better value


def _price(row: dict) -> float | None:
    price = row.get("purchase_price")
    return price["amount"] if price else None


def _on_sale(turn: Turn, gpu: str, model: str, task: str) -> dict | None:
    """The smallest configuration of this part on sale that holds the job, priced whole (server included)."""
    args = {"model": model, "task": task, "precision": precision_for(turn, task), "context": turn.slots.context_length,
            "batch": turn.slots.batch_size, "concurrency": turn.slots.concurrency, "gpus": [gpu], "top": 1, "currency": turn.currency}  # fmt: skip
    found = turn.call("recommend_gpus", args)
    if not found.ok or not found.result["options"]:
        return None
    return {**found.result["options"][0], "model_label": found.result["model_label"], "currency": found.result["currency"]}


def _quoted(turn: Turn, side: dict, gpu_id: str) -> dict:
    """The side priced at the card price the user quoted for its part (its cards at that price plus its server), the
    catalog's price kept when none was quoted in the answer's currency."""
    quote = _quote_for(turn, gpu_id)
    if quote is None or quote.currency != side["currency"] or side.get("server_cost") is None and side.get("server_class"):
        return side
    turn.slots.mark("server_price")
    cards = side["count"] * quote.amount
    return {**side, "purchase_cost": cards + (side.get("server_cost") or 0), "quoted_card": quote.amount}


def _output(option: dict, task: str) -> tuple[float | None, str]:
    """What the money buys for the job: output tokens/s for serving, dense compute for training."""
    if task == "inference" and option.get("tokens_per_s_total"):
        return option["tokens_per_s_total"], "tokens"
    return option.get("total_tflops"), "tflops"


def _job_answer(turn: Turn, rows: list[dict], model: str, task: str) -> list[str] | None:
    """Both sides as configurations on sale for the job: the premium, the gain, the verdict, the conditions."""
    found = [_on_sale(turn, r["id"], model, task) for r in rows]
    sides = [side and _quoted(turn, side, row["id"]) for side, row in zip(found, rows, strict=True)]
    label = turn.t(*TASK_LABEL[task])
    if sides[0] is None and sides[1] is None:
        return None
    dear_row, cheap_row = rows
    dear, cheap = sides
    if cheap is None or dear is None:  # one side cannot hold the job in any configuration on sale
        holds, fails = (dear, cheap_row) if cheap is None else (cheap, dear_row)
        return [WORDING.say(turn, "job.only_one", holds=turn.text(holds["config_label"]), fails=fails["name"], label=label,
                            model=turn.text(holds["model_label"]), price=money(holds["purchase_cost"], holds["currency"]) if holds.get("purchase_cost") else "—")]  # fmt: skip
    basis = next((key for key in ("purchase_cost", "cloud_cost_per_hour") if dear.get(key) and cheap.get(key)), None)
    if basis is None:  # neither a price to buy nor a rent for both: the gain alone, and the figure that would finish it
        return None
    if dear[basis] < cheap[basis]:  # the part dearer per card may be the cheaper configuration (fewer cards)
        dear, cheap, dear_row, cheap_row = cheap, dear, cheap_row, dear_row
    cur = dear["currency"]
    (dear_out, unit), (cheap_out, _) = _output(dear, task), _output(cheap, task)
    premium = dear[basis] - cheap[basis]
    values = {"dear": turn.text(dear["config_label"]), "cheap": turn.text(cheap["config_label"]), "dear_name": dear_row["name"],
              "cheap_name": cheap_row["name"], "dear_price": money(dear[basis], cur), "cheap_price": money(cheap[basis], cur),
              "premium": money(premium, cur), "premium_pct": number(premium / cheap[basis] * 100), "label": label,
              "model": turn.text(dear["model_label"]), "unit": WORDING.say(turn, f"unit.{unit}"), "basis": WORDING.say(turn, f"basis.{basis}")}  # fmt: skip
    if premium <= 0:
        lines = [WORDING.say(turn, "job.no_premium", **values)]
    elif dear_out is None or cheap_out is None or not cheap_out:
        lines = [WORDING.say(turn, "job.premium_only", **values)]
    else:
        gain = dear_out / cheap_out - 1
        cost = dear[basis] / cheap[basis] - 1
        worth = (1 + gain) / (1 + cost)  # output per unit of money, dearer over cheaper
        key = "worth" if worth > 1 + SAME else "even" if worth >= 1 - SAME else "not_worth"
        lines = [WORDING.say(turn, f"job.{key}", gain_pct=number(gain * 100), dear_out=number(dear_out), cheap_out=number(cheap_out), **values)]
    lines += _quotes_used(turn, [(dear_row, dear), (cheap_row, cheap)], basis)
    memory = dear["nominal_memory_gb"] / cheap["nominal_memory_gb"] if cheap.get("nominal_memory_gb") else 1
    lines.append(WORDING.say(turn, "job.worth_if_memory" if memory > 1 + SAME else "job.worth_if_speed", memory=number(memory, 2),
                             dear_headroom=number(dear["headroom_pct"]), cheap_headroom=number(cheap["headroom_pct"]), **values))  # fmt: skip
    lines.append(_side_table(turn, [dear, cheap], task))
    return lines


def _quotes_used(turn: Turn, sides: list[tuple[dict, dict]], basis: str) -> list[str]:
    """Which side's price is the user's quote (cards at the quoted price plus the server), right under the verdict."""
    quoted = [(row, side) for row, side in sides if side.get("quoted_card") is not None]
    if not quoted or basis != "purchase_cost":
        return []
    each = [WORDING.say(turn, "quoted.side", name=row["name"], quote=money(side["quoted_card"], side["currency"]), count=str(side["count"]),
                        server=money(side.get("server_cost") or 0, side["currency"])) for row, side in quoted]  # fmt: skip
    return [WORDING.say(turn, "quoted.lead", sides=WORDING.say(turn, "quoted.joiner").join(each))]


def _side_table(turn: Turn, sides: list[dict], task: str) -> str:
    head = [WORDING.say(turn, "table.figure"), *(turn.text(s["config_label"]) for s in sides)]

    def cell(s: dict, key: str, digits: int = 0) -> str:
        return number(s[key], digits) if s.get(key) is not None else "—"

    rows = [
        (WORDING.say(turn, "table.price"), *(money(s["purchase_cost"], s["currency"]) if s.get("purchase_cost") else "—" for s in sides)),
        (WORDING.say(turn, "table.rent"), *(money(s["cloud_cost_per_hour"], s["currency"]) if s.get("cloud_cost_per_hour") else "—" for s in sides)),
        (WORDING.say(turn, "table.memory"), *(cell(s, "nominal_memory_gb") for s in sides)),
        (WORDING.say(turn, "table.headroom"), *(cell(s, "headroom_pct") for s in sides)),
    ]
    if task == "inference":
        rows += [(WORDING.say(turn, "table.per_user"), *(cell(s, "tokens_per_s_per_user", 1) for s in sides)),
                 (WORDING.say(turn, "table.total"), *(cell(s, "tokens_per_s_total", 1) for s in sides))]  # fmt: skip
    rows.append((WORDING.say(turn, "table.tflops"), *(cell(s, "total_tflops") for s in sides)))
    return table(head, rows)


def _machines(turn: Turn, rows: list[dict], currency: str) -> tuple[int, list[dict]] | None:
    """Both parts priced as whole machines of the same count: the smallest either is sold in (one card in a desktop or
    workstation for a PCIe card, a 4- or 8-GPU board in its server for an SXM part), each with its host or published
    quote; None when either has no whole price."""
    count = max(sold_count_from(turn.catalog.gpu(r["id"]), 1) or 1 for r in rows)
    wholes = []
    for row in rows:
        priced = turn.call("estimate_server_price", {"gpu": row["id"], "gpus": count, "currency": currency})
        whole = priced.result.get("whole") if priced.ok else None
        if not whole or whole["currency"] != currency:
            return None
        wholes.append({"mid": (whole["low"] + whole["high"]) / 2, "currency": whole["currency"]})
    return count, wholes


def _quote_for(turn: Turn, gpu_id: str):
    """The card price the user quoted for this part (Ask.part_prices), the first said; None when none was."""
    return next((p for p in turn.ask.part_prices if (gpu := turn.catalog.find_gpu(p.gpu)) is not None and gpu.id == gpu_id), None)


def _card_quotes(turn: Turn, rows: list[dict]) -> list | None:
    """The card prices the user quoted for both parts, in one currency; None unless both are quoted."""
    found = [_quote_for(turn, row["id"]) for row in rows]
    if None in found or found[0].currency != found[1].currency:
        return None
    return found


def _card_answer(turn: Turn, rows: list[dict]) -> list[str]:
    """No job named: the premium of the same-size whole machine (else per card) against the per-card gain in bandwidth
    (serving), compute (training) and memory; the verdict names the deciding multiples."""
    listed = rows[0]["purchase_price"] or rows[1]["purchase_price"]
    cur = listed["currency"] if listed else turn.currency
    quotes = _card_quotes(turn, rows)
    machines = None
    if quotes:  # the buyer's own card prices decide the premium, in the buyer's currency; the dearer quote is weighed
        if quotes[0].amount < quotes[1].amount:
            rows, quotes = rows[::-1], quotes[::-1]
    else:  # a part with no list price (MI300X) is priced by its machine's sourced estimate; the dearer machine is weighed
        machines = _machines(turn, rows, cur)
        unlisted = not (rows[0]["purchase_price"] and rows[1]["purchase_price"])  # the card-price order was a guess
        if machines and unlisted and machines[1][0]["mid"] < machines[1][1]["mid"]:
            rows, machines = rows[::-1], (machines[0], machines[1][::-1])
    dear, cheap = rows
    claim = turn.call("check_gpu_claim", {"proposed": {"gpu": dear["id"], "count": 1}, "incumbent": {"gpu": cheap["id"], "count": 1}})
    dear_price, cheap_price = _price(dear), _price(cheap)
    if not claim.ok or not (machines or (dear_price and cheap_price)):
        return [WORDING.say(turn, "card.unpriced", dear=dear["name"], cheap=cheap["name"]), WORDING.say(turn, "ask_job")]
    r = claim.result
    if quotes:
        (dear_price, cheap_price), cur = (quote.amount for quote in quotes), quotes[0].currency
        turn.slots.mark("server_price")
    elif machines:  # what a buyer pays: both parts as the same-size machine, host included, not the cards alone
        count, (dear_whole, cheap_whole) = machines
        dear_price, cheap_price, cur = dear_whole["mid"], cheap_whole["mid"], dear_whole["currency"]
    cost = dear_price / cheap_price
    values = {"dear": dear["name"], "cheap": cheap["name"], "dear_price": money(dear_price, cur), "cheap_price": money(cheap_price, cur),
              "cost": number(cost, 2), "premium_pct": number((cost - 1) * 100), "bandwidth": number(r["bandwidth_ratio"], 2),
              "compute": number(r["compute_ratio"] or 0, 2), "memory": number(r["memory_ratio"], 2), "count": machines[0] if machines else 1}  # fmt: skip
    lines = [WORDING.say(turn, "card.lead_quoted" if quotes else "card.lead_machine" if machines else "card.lead", **values)]
    worth, ratios = [], {"serving": values["bandwidth"], "training": values["compute"]}
    for job, ratio in (("serving", r["bandwidth_ratio"]), ("training", r["compute_ratio"] or 0)):
        key = "worth" if ratio > cost * (1 + SAME) else "even" if ratio >= cost * (1 - SAME) else "not_worth"
        worth += [job] if key == "worth" else []
        lines.append("- " + WORDING.say(turn, f"card.{job}.{key}", **values))
    # the decision asked ("is it worth upgrading?") first, in one sentence, from the per-job verdicts below it
    jobs = {job: WORDING.say(turn, f"card.verdict.job.{job}") for job in ("serving", "training")}
    if len(worth) == 1:  # the deciding figures in the verdict itself: each job's speed multiple against the price multiple
        other = next(k for k in jobs if k != worth[0])
        lead = WORDING.say(turn, "card.verdict.one", job=jobs[worth[0]], other=jobs[other], job_ratio=ratios[worth[0]], other_ratio=ratios[other], **values)
    else:
        lead = WORDING.say(turn, "card.verdict.both" if worth else "card.verdict.none", **values)
    lines[0] = lead + " " + lines[0]
    if r["memory_ratio"] > 1 + SAME:
        lines.append("- " + WORDING.say(turn, "card.memory", **values))
    lines.append(WORDING.say(turn, "ask_job"))
    return lines


def answer(turn: Turn) -> str:
    pairs = compare.options(turn)[:2]
    turn.slots.mark("gpu", "gpu_count")
    turn.entities.mark("gpu", "gpu_count")
    listed = turn.call("compare_gpus", {"gpus": list(dict.fromkeys(g for g, _ in pairs)), "currency": turn.currency})
    if not listed.ok:
        return turn.error(listed)
    by_id = {row["gpu"]["id"]: row["gpu"] for row in listed.result["rows"]}
    rows = [by_id[turn.catalog.gpu(g).id] for g, _ in pairs]
    if len({r["id"] for r in rows}) < 2:
        return compare.route(turn) or ""
    rows.sort(key=lambda r: -(_price(r) or 0))  # the dearer part first: the premium is paid for it
    has_job = turn.slots.frame.has("model") or turn.slots.frame.has("size")
    body = None
    if has_job and (model := model_of(turn)):
        task, named = task_of(turn)
        if not named:
            turn.assume(*WORDING.both("assumed_serving"))
        body = _job_answer(turn, rows, model, task)
    body = body or _card_answer(turn, rows)
    for gpu in rows:
        turn.cite_gpu(gpu)
    # the verdict first; a mainland buyer then hears which side cannot be bought new there
    parts = [*body[:1], *mainland.blocked_list(turn, rows), *body[1:]]
    parts += price_dates.stale_note(turn, [dated for r in rows for dated in price_dates.gpu_prices(r, ("purchase_price",))])
    turn.assume(*WORDING.pair("prices"))
    return "\n\n".join(p for p in parts if p)
