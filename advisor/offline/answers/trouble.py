"""Troubleshooting answers: ranked diagnoses with evidence and concrete actions."""

from __future__ import annotations

from advisor.labels import PARSED, PARSED_UNITS
from advisor.markdown import code_span, number
from advisor.offline.answers.knowledge import related
from advisor.offline.turn import Turn

SHOWN_FINDINGS = 3


def answer(turn: Turn) -> str:
    model = turn.slots.models[0] if turn.slots.models else None
    turn.entities.mark(*turn.entities.frame.names())  # every value stated reaches the diagnosis, as text
    outcome = turn.call("diagnose", {"text": _reported(turn), "language": turn.language, "model": model, "max_findings": 5})
    if not outcome.ok:
        return turn.error(outcome)
    result = outcome.result
    findings = result["findings"]
    notes = [f"ℹ️ {turn.text(n)}" for n in result["notes"]]
    if not findings:
        lead = turn.t(
            "I couldn't match this to a known failure pattern. Paste the full error (the last 50 lines of the log, `nvidia-smi -q`, or `dmesg | grep -i xid`) and I'll look again.",
            "没有匹配到已知的故障模式。请贴出完整报错（日志最后50行、`nvidia-smi -q` 输出或 `dmesg | grep -i xid`），我再帮您分析。",
        )
        return "\n\n".join([lead, *notes])
    top = findings[0]
    parts = [f"**{turn.t('Most likely', '最可能的原因')}: {turn.text(top['title'])}**"]
    tried = _already_tried(turn)
    if tried:
        names = turn.t(", ", "、").join(turn.t(*TRIED_LABEL[lever]) for lever in tried)
        parts.append(turn.t(f"Already tried: {names} — the steps below go further.", f"已经试过：{names}——下面是进一步的办法。"))
    for rank, finding in enumerate(findings[:SHOWN_FINDINGS], start=1):
        parts.append(_finding(turn, rank, finding, tried))
    hint = result.get("memory_hint")
    if hint and hint.get("capacity_gb"):
        parts.append(_memory_tie_in(turn, hint))
    related(turn, turn.text(top["title"]))
    return "\n\n".join(parts + notes)


def _reported(turn: Turn) -> str:
    """The whole report: a detail added later ("only on 2 nodes") or a second pasted log is read with the
    thread it belongs to, newest first so evidence line numbers point into what was just written."""
    thread = turn.reading.task_messages
    if thread[-1:] != [turn.message]:
        return turn.message
    return "\n".join(reversed(thread))


# What a detail can say was changed already ("bs已经降到2了", "gradient checkpointing is on"), in the order named
TRIED_LABEL = {
    "batch": ("a smaller batch", "调小批大小"),
    "recompute": ("activation checkpointing", "激活检查点"),
    "precision": ("a lower precision", "降低精度"),
    "sharding": ("ZeRO/FSDP sharding", "ZeRO/FSDP 切分"),
    "offload": ("CPU offload", "CPU 卸载"),
}


def _already_tried(turn: Turn) -> list[str]:
    """The levers a later message of the thread says were pulled already; the first states the setup, not attempts."""
    if len(turn.reading.task_messages) < 2:
        return []
    frame = turn.reading.frame
    pulled = {(slot, lever) for slot in frame.names() for value in frame.all(slot) if (lever := _lever(slot, value))}
    turn.slots.mark(*(slot for slot, _ in pulled))
    return [lever for lever in TRIED_LABEL if any(lever == named for _, named in pulled)]


def _lever(slot: str, value: object) -> str | None:
    """Offload is written among the ZeRO stages but is a lever of its own; "no checkpointing" pulls none."""
    if slot == "sharding":
        return "offload" if value == "offload" else "sharding"
    if slot == "recompute" and value == "none":
        return None
    return slot if slot in TRIED_LABEL else None


def _parsed(turn: Turn, field: str, value: object) -> str:
    """"asked for 2,048 MiB", not "requested_mib=2048.0": a value read from the log, in words."""
    unit = next((suffix for suffix in PARSED_UNITS if field.endswith(suffix)), "")
    name = turn.t(*PARSED[field]) if field in PARSED else field.removesuffix(unit).replace("_", " ")
    shown = number(value) if isinstance(value, (int, float)) else str(value)
    return f"{name} {shown}{PARSED_UNITS.get(unit, '')}"


def _finding(turn: Turn, rank: int, finding: dict, tried: list[str] = ()) -> str:
    evidence = finding["evidence"][0] if finding["evidence"] else None
    lines = [f"**{rank}. {turn.text(finding['title'])}**"]
    if evidence:
        lines.append(turn.t(f"Evidence (line {evidence['line']}):", f"证据（第 {evidence['line']} 行）：") + " " + code_span(evidence["excerpt"][:200]))
    if finding["parsed"]:
        values = "; ".join(_parsed(turn, field, value) for field, value in list(finding["parsed"].items())[:6])
        lines.append(turn.t("Read from the log: ", "从日志读出：") + values)
    if finding["causes"]:
        lines.append(turn.t("Likely causes: ", "可能原因：") + turn.t(" ", "").join(turn.text(c) for c in finding["causes"][:3]))
    for action in [a for a in finding["actions"] if a.get("lever") not in tried][:4]:
        step = turn.text(action)
        command = action.get("command")
        lines.append(f"- {step}" + (f"\n  `{command}`" if command else ""))
    return "\n".join(lines)


def _memory_tie_in(turn: Turn, hint: dict) -> str:
    requested = hint.get("requested_gib")
    capacity = hint["capacity_gb"]
    text = turn.t(
        f"The GPU reports {number(capacity)} GB total" + (f" and the failing allocation asked for {number(requested, 2)} GiB" if requested else "") + ".",
        f"该GPU总显存约 {number(capacity)} GB" + (f"，失败的那次分配申请了 {number(requested, 2)} GiB" if requested else "") + "。",
    )
    text += " " + turn.t(
        "Ask me “how much memory does <model> need for <task>?” to compare with what your job should use.",
        "可以问我「<模型> 做 <任务> 需要多少显存？」，对比作业理论上应占用的显存。",
    )
    return text
