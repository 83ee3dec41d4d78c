"""Reserved (committed) capacity or on-demand for the same use ("1-yr reserved at $X vs on-demand $Y, ~N GPU-hours a
week, peaks at M GPUs"): which to buy, or reserve the base load and burst on demand. Runs plan.reserved_or_on_demand
(the rates bound to their billing words, the use and the peak), the reserved_or_on_demand tool, then
render.reservation (its sentences)."""

from __future__ import annotations

from advisor.offline.tasks.tco import plan, render
from advisor.offline.turn import Turn


def answer(turn: Turn) -> str:
    planned = plan.reserved_or_on_demand(turn)
    if planned.args["reserved_per_gpu_hour"] is None or planned.args["on_demand_per_gpu_hour"] is None:
        return render.reservation_missing(turn, planned)
    outcome = turn.call("reserved_or_on_demand", planned.args)
    if not outcome.ok:
        return turn.error(outcome)
    return render.reservation(turn, planned, outcome.result)
