"""The per-user speed a serving answer is judged against when the question states no target of its own.

A serving answer that stops at "it fits" misses the point when each user then reads a few tokens a second: the
speed is judged against the chat floor of knowledge/traffic.yaml (MLCommons' user study), which then acts as the
target every sizing step meets, and the floor is said once, with its source, among the assumptions.
"""

from __future__ import annotations

from advisor.offline.turn import Turn
from knowledge.bilingual import Text
from knowledge.traffic import traffic_data
from knowledge.wording import shipped

FLOOR_MARK = "_chat_floor"  # set in the estimate's arguments when the target is the floor, not the user's; never sent to the tool
SPEED_TARGET = "target_tokens_per_s_per_user"
TEXT = shipped("traffic.yaml")


def chat_floor_tokens_per_s() -> float:
    return float(traffic_data()["chat_floor"]["value"])


def floor_assumption() -> Text:
    data = traffic_data()["chat_floor"]
    source = f"{data['source']['title']}, {data['source']['url']}"
    return TEXT.text("floor_text", floor=f"{data['value']:g}", p99=f"{data['interactive_p99']:g}", source=source)


def readable_floor_tokens_per_s() -> float:
    return float(traffic_data()["readable_floor"]["value"])


def readable_assumption() -> Text:
    """The readable floor said as an assumption the user can replace, with its source."""
    data = traffic_data()["readable_floor"]
    source = f"{data['source']['title']}, {data['source']['url']}"
    return TEXT.text("readable_text", floor=f"{data['value']:g}", reading=f"{data['reading_tokens_per_s']:g}", chat=f"{chat_floor_tokens_per_s():g}", source=source)


def apply_chat_floor(turn: Turn, args: dict) -> bool:
    """With no per-user speed target stated, the chat floor becomes the speed target (marked so the wording names it as
    the floor, not as the user's target). A stated first-token target does not replace it: a chat user waits for the
    first token and then reads the stream, so both apply together and the answer says which one binds.
    Returns whether it was applied."""
    if args.get(SPEED_TARGET) or turn.ask.observed_in_thread:
        return False  # a measured speed in the thread is judged against the estimate, not against a floor
    args[SPEED_TARGET] = chat_floor_tokens_per_s()
    args[FLOOR_MARK] = True
    turn.assumptions.append(turn.text(floor_assumption()))
    return True


def is_floor(args: dict) -> bool:
    return bool(args.get(FLOOR_MARK))


def only_floor(args: dict) -> bool:
    """The chat floor is the only target (no first-token target stated beside it)."""
    return is_floor(args) and not args.get("target_ttft_ms")


def both_targets(args: dict) -> bool:
    """A first-token target and a per-user speed (the user's or the chat floor) are checked together."""
    return bool(args.get("target_ttft_ms")) and bool(args.get(SPEED_TARGET))


TOTAL_MARK = "_total_tokens_per_s"  # a throughput the whole deployment must produce ("2000 tok/s total"); never sent to the tool


def tool_args(args: dict) -> dict:
    """The arguments the estimator takes: the marks (the floor's, a total throughput) left out."""
    return {key: value for key, value in args.items() if key not in (FLOOR_MARK, TOTAL_MARK)}
