"""``nvidia-smi -q`` output: throttle reasons, temperatures, power, ECC and row remapping per GPU."""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.wording import shipped
from tools.troubleshoot.parsers.records import EXCERPT_CHARS, MAX_RECORDS, ParsedRecord, Value, put

_SMI_GUARD = ("Current Temp", "Throttle Reasons", "Event Reasons", "ECC Errors", "Remapped Rows", "Retired Pages")
_SMI_GPU_HEADER = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")
REASON_FIELDS = {
    "idle": "gpu_idle", "applications clocks setting": "applications_clocks", "sw power cap": "sw_power_cap",
    "hw slowdown": "hw_slowdown", "hw thermal slowdown": "hw_thermal_slowdown",
    "hw power brake slowdown": "hw_power_brake_slowdown", "sync boost": "sync_boost",
    "sw thermal slowdown": "sw_thermal_slowdown",
}  # fmt: skip
TEMPERATURE_FIELDS = {
    "gpu current temp": "gpu_temp_c", "gpu shutdown temp": "shutdown_temp_c", "gpu slowdown temp": "slowdown_temp_c",
    "gpu max operating temp": "max_operating_temp_c", "memory current temp": "memory_temp_c",
    "memory max operating temp": "memory_max_temp_c",
    # Newer drivers on Hopper/Ada print "T.Limit" rows instead: the current headroom ("GPU T.Limit Temp")
    # and each threshold as a T.Limit value (slowdown at -2 C means slowdown when headroom reaches -2).
    "gpu t.limit temp": "tlimit_c", "gpu shutdown t.limit temp": "shutdown_tlimit_c",
    "gpu slowdown t.limit temp": "slowdown_tlimit_c", "gpu max operating t.limit temp": "max_operating_tlimit_c",
}  # fmt: skip
POWER_FIELDS = {
    "power draw": "power_draw_w", "average power draw": "power_draw_w", "current power limit": "power_limit_w",
    "enforced power limit": "power_limit_w", "power limit": "power_limit_w",
    "default power limit": "default_power_limit_w",
}  # fmt: skip
REMAP_FIELDS = {
    "correctable error": "remap_correctable", "uncorrectable error": "remap_uncorrectable",
    "pending": "remap_pending", "remapping failure occurred": "remap_failure",
}  # fmt: skip
RETIRED_FIELDS = {
    "single bit ecc": "retired_sbe", "double bit ecc": "retired_dbe",
    "pending page blacklist": "retired_pending", "pending page retirement": "retired_pending",
}  # fmt: skip
_REASON_TEXT = shipped("troubleshoot_text.yaml")
# Reasons written beside their state in a sentence or a short paste: data tables, longest name/state first.
REPORTED_REASON_NAMES: dict[str, str] = dict(
    sorted(_REASON_TEXT.entry("clock_reason_names").items(), key=lambda item: -len(item[0]))
)
REPORTED_REASON_STATES: dict[str, float] = {
    str(word): float(state) for word, state in sorted(_REASON_TEXT.entry("clock_reason_states").items(), key=lambda item: -len(str(item[0])))
}
_REASON_JOINERS: tuple[str, ...] = tuple(sorted(_REASON_TEXT.entry("clock_reason_joiners"), key=len, reverse=True))
REASON_LABELS: dict[str, str] = _REASON_TEXT.entry("clock_reason_labels")
# Thermal and brake reasons, in the order an answer names the active ones (the power cap last: it is normal at full load).
_LABEL_ORDER = ("hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown", "hw_slowdown", "sw_power_cap",
                "applications_clocks", "sync_boost", "gpu_idle")  # fmt: skip
_STATE_GAP = 3  # joiners read between a name and its state ("HW Slowdown is : Active")
_LEADING_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")


def parse_reported_reasons(text: str) -> ParsedRecord | None:
    """Clock event reasons written with their states outside a ``nvidia-smi -q`` block: "HW Thermal Slowdown: Active,
    SW Power Cap: Not Active", the same in Chinese, "hw_slowdown=1". Names and states come from data tables; a reason
    named without a state is not read (nobody can tell which way it went). One record with every reason read; its
    excerpt lists them as nvidia-smi prints them, so the evidence quotes readings rather than the user's sentence."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer would shift every offset
        lowered = "".join(character.lower() if len(character.lower()) == 1 else character for character in text)
    values: dict[str, Value] = {}
    first: int | None = None
    taken: list[tuple[int, int]] = []
    for name, field in REPORTED_REASON_NAMES.items():
        start = 0
        while (position := lowered.find(name, start)) >= 0:
            start = position + len(name)
            end = position + len(name)
            if any(a <= position < b for a, b in taken) or not _standalone(lowered, position, end, name):
                continue
            state = _state_after(lowered, end)
            if state is None:
                continue
            taken.append((position, end))
            values.setdefault(field, state)
            first = position if first is None else min(first, position)
    if first is None:
        return None
    line = lowered.count("\n", 0, first) + 1
    reasons = {field: value for field, value in values.items()}
    readings = "; ".join(
        f"{REASON_LABELS[field]}: {'Active' if reasons[field] else 'Not Active'}" for field in _LABEL_ORDER if field in reasons
    )
    active = ", ".join(REASON_LABELS[field] for field in _LABEL_ORDER if reasons.get(field) == 1.0)
    if active:
        values["active_reasons"] = active
    return ParsedRecord(
        parser="nvidia_smi_query", kind="reported", line=line, excerpt=readings[:EXCERPT_CHARS], values=values,
        field_lines={field: line for field in values},
    )


def _standalone(lowered: str, start: int, end: int, word: str) -> bool:
    """An ASCII name or state stands as whole words ("active" is not in "inactive", "no" not in "not")."""
    if not word.isascii():
        return True
    before = lowered[start - 1] if start else " "
    after = lowered[end] if end < len(lowered) else " "
    # Only a word character at the word's own edge needs a boundary there: ":" may touch anything.
    return not (_word_character(word[0]) and _word_character(before)) and not (_word_character(word[-1]) and _word_character(after))


def _word_character(character: str) -> bool:
    return character.isascii() and (character.isalnum() or character == "_")


def _state_after(lowered: str, position: int) -> float | None:
    """The state written after a reason's name, past at most a few joiners; a word that is both a joiner and a state
    (Chinese "is") counts only when no other state follows it ("is: not active" is not active)."""
    found: float | None = None
    for _ in range(_STATE_GAP + 1):
        while position < len(lowered) and lowered[position] in " \t":
            position += 1
        state = next(
            (word for word in REPORTED_REASON_STATES if lowered.startswith(word, position) and _standalone(lowered, position, position + len(word), word)),
            None,
        )
        joiner = next(
            (word for word in _REASON_JOINERS if lowered.startswith(word, position) and _standalone(lowered, position, position + len(word), word)),
            None,
        )
        if state is not None and (joiner is None or len(state) > len(joiner)):
            return REPORTED_REASON_STATES[state]
        if state is not None:
            found = REPORTED_REASON_STATES[state]
        if joiner is None:
            return found
        position += len(joiner)
    return found


def _smi_value(raw: str) -> float | None:
    """'Active' → 1, 'Not Active' → 0, 'Yes'/'No', '35 C' → 35, '74.71 W' → 74.71, 'N/A' → None."""
    lowered = raw.strip().lower()
    if lowered in ("active", "yes"):
        return 1.0
    if lowered in ("not active", "no"):
        return 0.0
    number = _LEADING_NUMBER.match(lowered)
    return float(number.group()) if number else None


@dataclass
class _SmiGpu:
    bus: str
    line: int
    values: dict[str, Value]
    field_lines: dict[str, int]
    ecc: dict[tuple[str, str, str], float]  # (volatile|aggregate, parent section, key) → count


def _section_kind(name: str, parent: str | None) -> str | None:
    """Which of our field tables a ``nvidia-smi -q`` section feeds; None for sections we ignore."""
    if name.startswith("clocks") and name.endswith("reasons"):  # "... Reasons Counters" holds durations: ignored
        return "reasons"
    if name == "temperature":
        return "temperature"
    if "power readings" in name:
        return "power"
    if name == "remapped rows":
        return "remap"
    if name == "retired pages":
        return "retired"
    if parent == "retired":
        return "retired:" + name
    if name == "ecc errors":
        return "ecc"
    if parent == "ecc" and name in ("volatile", "aggregate"):
        return f"ecc:{name}"
    if parent is not None and parent.startswith("ecc:"):
        return parent.split("/")[0] + "/" + name
    return None


def parse_nvidia_smi_query(text: str) -> list[ParsedRecord]:
    """``nvidia-smi -q`` output: clocks event/throttle reasons, temperatures vs limits, power, ECC, row remapping.

    Works with both the pre-R535 "Clocks Throttle Reasons" and the newer "Clocks Event Reasons" headings.
    One record per GPU block (or one record when the paste has no ``GPU 0000:…`` header).
    """
    blocks = _query_blocks(text) if any(marker in text for marker in _SMI_GUARD) else []
    if any(field in record.values for record in blocks for field in REASON_FIELDS.values()):
        return blocks
    reported = parse_reported_reasons(text)
    return blocks + ([reported] if reported else [])


def _query_blocks(text: str) -> list[ParsedRecord]:
    """The per-GPU blocks of a ``nvidia-smi -q`` dump."""
    lines = text.split("\n")
    gpus: list[_SmiGpu] = []
    stack: list[tuple[int, str, str | None]] = []  # (indent, section name, section kind)
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if not stripped:
            continue
        indent = len(line) - len(stripped)
        if indent == 0 and line.startswith("GPU "):
            header = _SMI_GPU_HEADER.match(line)
            if header:
                gpus.append(_SmiGpu(header.group(1), number, {}, {}, {}))
                stack = []
                continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key, colon, raw = stripped.partition(":")
        key = key.strip().lower()
        section = stack[-1][2] if stack else None
        if not colon:
            stack.append((indent, key, _section_kind(key, section)))
        elif section is not None:
            if not gpus:
                gpus.append(_SmiGpu("unknown", number, {}, {}, {}))
            _smi_store(gpus[-1], number, section, stack[-1][1], key, raw)
    records = []
    for gpu in gpus[:MAX_RECORDS]:
        values = _smi_derive(gpu)
        if len(values) > 1:  # more than the bus id: the block held something we understand
            excerpt = lines[gpu.line - 1].strip()[:EXCERPT_CHARS]
            records.append(ParsedRecord(parser="nvidia_smi_query", kind="gpu", line=gpu.line, excerpt=excerpt,
                                        values=values, field_lines=gpu.field_lines))  # fmt: skip
    return records


_SECTION_TABLES = {"reasons": REASON_FIELDS, "temperature": TEMPERATURE_FIELDS, "power": POWER_FIELDS,
                   "remap": REMAP_FIELDS, "retired": RETIRED_FIELDS}  # fmt: skip


def _smi_store(gpu: _SmiGpu, number: int, section: str, parent: str, key: str, raw: str) -> None:
    value = _smi_value(raw)
    if value is None:
        return
    if section.startswith("ecc:"):
        scope, _, subsection = section[4:].partition("/")
        gpu.ecc[(scope, subsection, key)] = value
        uncorrectable = "uncorrectable" in key or subsection == "double bit"
        if value > 0:  # evidence points at the first non-zero counter of each class
            gpu.field_lines.setdefault(f"ecc_{scope}_{'un' if uncorrectable else ''}correctable", number)
        return
    if section.startswith("retired:") and key == "retirement count":  # R450+ nests counts under "Single Bit ECC"
        section, key = "retired", parent
    name = _SECTION_TABLES.get(section, {}).get(key)
    if name and name not in gpu.values:
        gpu.values[name] = value
        gpu.field_lines[name] = number


def _ecc_totals(ecc: dict[tuple[str, str, str], float], scope: str) -> tuple[float | None, float | None, float]:
    """(correctable, uncorrectable, SRAM uncorrectable) for one scope, for old (Single/Double Bit) and new layouts."""
    entries = {(parent, key): v for (s, parent, key), v in ecc.items() if s == scope}
    if not entries:
        return None, None, 0.0
    if any(key == "total" for _, key in entries):
        correctable = entries.get(("single bit", "total"))
        uncorrectable = entries.get(("double bit", "total"))
        return correctable, uncorrectable, 0.0
    correctable = sum(v for (_, k), v in entries.items() if "correctable" in k and "uncorrectable" not in k)
    uncorrectable = sum(v for (_, k), v in entries.items() if "uncorrectable" in k)
    sram = sum(v for (_, k), v in entries.items() if "uncorrectable" in k and "sram" in k)
    return correctable, uncorrectable, sram


def _smi_derive(gpu: _SmiGpu) -> dict[str, Value]:
    values: dict[str, Value] = {"gpu_bus": gpu.bus, **gpu.values}
    active = ", ".join(REASON_LABELS[field] for field in _LABEL_ORDER if values.get(field) == 1.0)
    if active:
        values["active_reasons"] = active

    def margin(name: str, minuend: str, subtrahend: str) -> None:
        if isinstance(values.get(minuend), float) and isinstance(values.get(subtrahend), float):
            values[name] = float(values[minuend]) - float(values[subtrahend])
            current = minuend if minuend == "tlimit_c" else subtrahend  # point evidence at the live reading
            gpu.field_lines[name] = gpu.field_lines[current]

    for name in ("slowdown", "shutdown", "max_operating"):
        margin(f"{name}_margin_c", f"{name}_temp_c", "gpu_temp_c")
        if f"{name}_margin_c" not in values:
            margin(f"{name}_margin_c", "tlimit_c", f"{name}_tlimit_c")
    margin("memory_margin_c", "memory_max_temp_c", "memory_temp_c")
    margin("power_limit_reduction_w", "default_power_limit_w", "power_limit_w")
    for scope in ("volatile", "aggregate"):
        correctable, uncorrectable, sram = _ecc_totals(gpu.ecc, scope)
        put(values, f"ecc_{scope}_correctable", correctable)
        put(values, f"ecc_{scope}_uncorrectable", uncorrectable)
        if scope == "aggregate" and sram:
            values["sram_aggregate_uncorrectable"] = sram
            gpu.field_lines["sram_aggregate_uncorrectable"] = gpu.field_lines["ecc_aggregate_uncorrectable"]
    # Volatile counts reset at driver reload and aggregate ones persist, so the larger one is the total seen.
    counts = {s: values.get(f"ecc_{s}_uncorrectable") for s in ("volatile", "aggregate")}
    known = {s: float(v) for s, v in counts.items() if isinstance(v, float)}
    if known:
        values["ecc_uncorrectable"] = max(known.values())
        lines = [gpu.field_lines.get(f"ecc_{scope}_uncorrectable") for scope in known]
        if any(lines):
            gpu.field_lines["ecc_uncorrectable"] = next(line for line in lines if line)
    return values
