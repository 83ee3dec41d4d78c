"""The serving task's render helpers: the estimator's results and the targets held, as the phrases the answers are built
from (a bound, the targets, a per-user figure, a TP plan, the card's name, a rate as the user wrote it, what a total
throughput gives each user, whole servers, a size tried, the quality cost of lower-bit weights). Wording lives in the
package text.yaml (section serving); no tool arguments are decided here."""

from __future__ import annotations

import math

from advisor.markdown import number
from advisor.offline.tasks.serving.serving_floor import TOTAL_MARK, both_targets, chat_floor_tokens_per_s, is_floor
from advisor.offline.tasks.serving.serving_words import WORDING, serving_text
from advisor.offline.tasks.serving.serving_traffic import TrafficLoad
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from tools.recommend.configs import SERVER_GPUS  # the standard 8-GPU server of data-centre cards
from tools.serving.load import RateResult

NOTHING = Text(en="", zh="")


def bound(r: dict) -> Text:
    return Text(**WORDING.data["bounds"].get(r["bound"], {"en": r["bound"], "zh": r["bound"]}))


def plan_text(tp: int, copies: int) -> Text:
    return serving_text("plan_tp", tp=tp) if copies == 1 else serving_text("plan_replicas", replicas=copies, tp=tp)


def targets(args: dict) -> Text | None:
    """The targets the estimate is held to: a first-token target, a per-user speed (the user's or the chat floor), or both."""
    speed = speed_target(args)
    if args.get("target_ttft_ms"):
        ttft = serving_text("target_ttft", value=number(args["target_ttft_ms"]))
        return serving_text("target_both", ttft=ttft, speed=speed) if speed else ttft
    return speed


def speed_target(args: dict) -> Text | None:
    if not args.get("target_tokens_per_s_per_user"):
        return None
    return serving_text("target_floor" if is_floor(args) else "target_speed", value=number(args["target_tokens_per_s_per_user"]))


def missed_target(args: dict, r: dict) -> Text | None:
    """The target a load misses: with a first-token target and a per-user speed both held, the one that stops it."""
    if both_targets(args) and r.get("limit_at_target") == "speed":
        return speed_target(args)
    if both_targets(args) and r.get("limit_at_target") == "ttft":
        return serving_text("target_ttft", value=number(args["target_ttft_ms"]))
    return targets(args)


def per_user_figure(value: float) -> str:
    """Two decimals below 10 tokens/s, so per-user × users still gives the total shown beside it."""
    return number(value, 2 if value < 10 else 1)


def average_per_user(r: dict) -> float:
    """Output tokens/s each user sees after the first token: the estimator's one per-user definition (decode steps
    plus the stalls from other requests' prefills; the user's own prefill is the TTFT), the figure targets are checked on."""
    return r["tokens_per_s_per_user_streaming"]


def engine_label(engine_id: str) -> str:
    from tools.serving.setup import ENGINE_LABELS

    return ENGINE_LABELS.get(engine_id, engine_id)


def total_shared(turn: Turn, args: dict, law: RateResult) -> list[str]:
    """"2000 tok/s total for 500 users": what each would see if all of them generated at once, against the per-user speed
    the count is held to (the requests in flight by Little's law are fewer than the users)."""
    s = turn.slots
    users = next((v for slot in ("concurrency", "audience") if isinstance(v := s.frame.get(slot), int | float) and not isinstance(v, bool)), None)
    if not args.get(TOTAL_MARK) or not users:
        return []
    s.mark("concurrency", "audience")
    each = args[TOTAL_MARK] / users
    floor = args.get("target_tokens_per_s_per_user") or chat_floor_tokens_per_s()
    key = "total_shared_below" if each < floor else "total_shared"
    return [turn.text(serving_text(key, total=number(args[TOTAL_MARK]), users=f"{users:,.0f}", each=per_user_figure(each), floor=number(floor),
                                   in_flight=number(law.in_flight), needed=number(users * floor)))]  # fmt: skip


def rate_words(turn: Turn, rate: float, output_tokens: int | None = None) -> str:
    """The rate as the user wrote it: per minute stays per minute; a total throughput stays tokens/s, with its rate."""
    if turn.slots.request_rate is None and output_tokens and turn.ask.throughput_scope == "total":
        return turn.text(serving_text("rate_of_total", total=number(rate * output_tokens), rate=number(rate, 2), output=f"{output_tokens:,}"))
    unit = turn.slots.request_rate.unit if turn.slots.request_rate else "requests/second"
    per_minute = unit == "requests/minute"
    if not per_minute and rate < SLOW_RATE:  # "0.0077 requests/s" reads as nothing: a light load is said per hour
        said = turn.text(serving_text("rate_per_hour", value=number(rate * 3600)))
    else:
        said = turn.text(serving_text("rate_per_minute" if per_minute else "rate_per_second", value=number(rate * 60 if per_minute else rate)))
    load = turn.slots.peak_load
    if isinstance(load, TrafficLoad) and load.period_assumed:  # "10,000 requests": the month it was read as, in the lead
        said += turn.text(serving_text("rate_month_assumed", said=load.said))
    return said


SLOW_RATE = 0.1  # requests/s below which a rate is said per hour


LOWER_BITS = Wording("serving", "lower_precision")


def quality(turn: Turn, precision: str, model_id: str | None = None) -> Text:
    """What ``precision`` weights cost in quality, in one phrase; its source is said once among the assumptions. A
    checkpoint of ``model_id`` that ships in a lower-bit format (DeepSeek in FP8) is measured against that release when
    a line for the step exists (``from_shipped``)."""
    spec = turn.catalog.find_model(model_id) if model_id else None
    shipped = spec.shipped_precision if spec is not None else None
    table = LOWER_BITS.data.get("from_shipped", {}).get(shipped, {}) if shipped else {}
    if precision not in table.get("quality", {}):
        table = LOWER_BITS.data
    source = table["source"]
    note = turn.text(LOWER_BITS.text("source_note", title=source["title"], url=source["url"]))
    if note not in turn.assumptions:
        turn.assumptions.append(note)
    return Text(**table["quality"][precision])


def card_name(turn: Turn, gpu: str) -> str:
    found = turn.catalog.find_gpu(gpu)
    return found.name if found is not None else gpu


def in_servers(turn: Turn, total: int) -> list[str]:
    """A count past one server that does not fill whole servers ("13 H20") is ordered as whole servers: say how many,
    and what the slots left over are for."""
    if total <= SERVER_GPUS or total % SERVER_GPUS == 0:
        return []
    servers = math.ceil(total / SERVER_GPUS)
    slots = servers * SERVER_GPUS
    return [turn.text(serving_text("in_servers", servers=servers, per_server=SERVER_GPUS, slots=slots, spare=slots - total, total=total))]


def tried(holds: float | None, rate: float | None = None) -> Text:
    if holds is None:
        return serving_text("tried_no_fit")
    if not holds:
        return serving_text("tried_misses")
    return serving_text("tried_holds_rate" if rate else "tried_holds", holds=number(holds, 2 if rate else 1))
