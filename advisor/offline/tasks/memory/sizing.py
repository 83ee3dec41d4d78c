"""The memory task's answer module: ``fit.memory``, with a count of the named cards asked ("and how many if all
910B?") answered by the recommendation (``recommend.recommend``: the fewest of that card that hold it)."""

from __future__ import annotations

from functools import partial

from advisor.offline.tasks.memory import fit
from advisor.offline.tasks.recommend.recommend import recommend

memory = partial(fit.memory, counted=recommend)  # the memory task's answer (a binding, no step of its own)
