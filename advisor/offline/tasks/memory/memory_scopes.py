"""A memory estimate in both units people measure: PyTorch's allocator peak and nvidia-smi's per-process total,
the runtime between them, and which one the fit check compares with the card (wording: the memory task's text.yaml)."""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording

WORDING = Wording("memory", "memory_scopes")


def scopes_line(turn: Turn, estimate: dict) -> list[str]:
    """One line under the breakdown; nothing for a result without both totals (an older recording)."""
    if estimate.get("torch_allocated_peak_gb") is None or estimate.get("nvidia_smi_total_gb") is None:
        return []
    return [turn.text(WORDING.text("scopes", torch=number(estimate["torch_allocated_peak_gb"]),
                             smi=number(estimate["nvidia_smi_total_gb"]), runtime=number(estimate.get("outside_allocator_gb", 0.0))))]  # fmt: skip
