"""Symptoms written in prose or a pasted nvidia-smi table: utilisation, temperature, power."""

from __future__ import annotations

import re

from tools.troubleshoot.parsers.records import MAX_RECORDS, LineLocator, ParsedRecord, Value, first_matches, lines_with, number

# "35%", and a range "30-40%", "30%~40%", "30到40%": a range must read wherever a single figure does.
_PERCENT = (
    r"(?P<low>\d{1,3}(?:\.\d+)?)(?:\s*[%％]?\s*(?:-|–|~|～|到|至|\bto\b|\band\b)\s*(?P<high>\d{1,3}(?:\.\d+)?))?\s*[%％]"
)
# "三四十%", "百分之三十多", "利用率只有二三十": a percentage in Chinese numerals, a spread of two digits being a range.
_CHINESE_PERCENT = r"(?:百分之)?(?P<cn>[一二三四五六七八九]{0,2}十[一二三四五六七八九多几]?)(?![一二三四五六七八九十百千万亿])"
_UTIL_LITERALS = ("利用率", "使用率", "util", "Util", "UTIL")
_UTIL_PATTERNS = [
    re.compile(r"(?:利用率|使用率)[^\d\n%％。，,]{0,12}?" + _PERCENT),
    re.compile(r"(?i)\butil(?:i[sz]ation)?\b[^\d\n%]{0,40}?" + _PERCENT),
    re.compile(r"(?i)" + _PERCENT + r"\s*(?:的)?\s*(?:GPU\s*)?(?:util(?:i[sz]ation)?\b|利用率|使用率)"),
    # The words between may hold a numeral of their own ("一直在三十多"): the shortest gap before a whole number wins.
    re.compile(r"(?:利用率|使用率)[^\d\n%％。，,]{0,8}?" + _CHINESE_PERCENT),
    re.compile(_CHINESE_PERCENT + r"\s*[%％]?\s*(?:的)?\s*(?:GPU\s*)?(?:利用率|使用率)"),
]
_DIGIT = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# "num_workers=2", "2 dataloader workers", "worker设成2", "2个worker": the DataLoader processes the user runs.
_WORKERS = [
    re.compile(r"(?i)num_workers\s*(?:[=:]|is|of|设成|设为|设置为|=?)\s*(\d{1,3})\b"),
    re.compile(r"(?i)(?<![0-9A-Za-z_.])(\d{1,3})\s*(?:个)?\s*(?:dataloader\s*|data\s*loader\s*|loader\s*)?workers?\b"),
    re.compile(r"(?i)\bworkers?\s*(?:[=:]|设成|设为|只有|是)\s*(\d{1,3})\b"),
]
# The micro-batch the user runs: "micro batch is already 1", "bs=1", "batch size 2", "batch已经是1": a setting the
# rules rank causes by (a batch of 1 leaves kernels too small to fill the GPU, and no smaller batch is left to try).
_BATCH_LITERALS = ("batch", "Batch", "BATCH", "bs", "BS")
_BATCH = re.compile(
    r"(?i)(?<![a-z_])(?:micro[-_ ]?batch(?:[-_ ]?size)?|per[-_ ]device[-_ ]train[-_ ]batch[-_ ]size|batch[-_ ]?size|batch|bs)(?![a-z])"
    r"[^\d\n。，,;；]{0,16}?(?<![\d.])(\d{1,4})(?![\d.%])"
)
# Nodes the job runs on, stated before the word: "a 4-node job", "across 2 machines", "四台机器", "3个节点"; a card's model number
# ("our A100 nodes", "H800 servers") names the hardware, not a count of nodes.
_NODES_LITERALS = ("node", "Node", "machine", "server", "host", "台", "节点")
_NODES = re.compile(
    r"(?i)(?<![\d.#A-Za-z])(?P<count>\d{1,3})[- ]?(?:nodes?|machines|servers|hosts)\b"
    r"|(?P<zh>\d{1,3}|[两二三四五六七八九十]{1,2})\s*(?:台|个)\s*(?:机器|节点|服务器|主机)"
)
# "利用率只有一半": half, as a figure the utilisation rules compare.
_HALF_UTIL = re.compile(r"(?:利用率|使用率)[^\d\n%％。，,]{0,8}?一半")
_HALF_PERCENT = 50.0
# A measured MFU: "25% MFU", "MFU is only 25%", "MFU只有25%": a setting of the run the rules judge against published runs.
_MFU = re.compile(
    r"(?i)(?<![\d.])(\d{1,2}(?:\.\d+)?)\s*%\s*(?:的\s*)?mfu(?![a-z])|(?<![a-z])mfu(?![a-z])[^\d\n%]{0,16}?(\d{1,2}(?:\.\d+)?)\s*%"
)  # no \b beside "mfu": a Chinese character after it ("MFU只有25%") is a word character to \b
# A measured speed-up from adding nodes: "only 1.5x faster", "a 1.8x speedup", "speedup of 1.5", "只快了1.5倍",
# "加速比只有1.5", "速度只提升到1.3倍": a figure the scaling rule sets against the node count.
_SPEEDUP_LITERALS = ("fast", "speedup", "speed-up", "speed up", "快了", "快", "加速比", "提升", "倍")
_SPEEDUP = re.compile(
    r"(?i)(?<![\d.])(?P<a>\d{1,2}(?:\.\d+)?)\s*(?:x|×|times)\s*(?:as\s+fast|faster|speed-?\s?up|the\s+(?:speed|throughput))"
    r"|speed-?\s?up\s*(?:of|is|was|=|:)?\s*(?:only|just|about|around|~)?\s*(?P<b>\d{1,2}(?:\.\d+)?)\s*(?:x|×)?(?![\d.%])"
    r"|(?:快了|快|加速比|提升到|提升了|提升)[^\d\n。，,]{0,6}?(?P<c>\d{1,2}(?:\.\d+)?)\s*(?:倍|x|×)"
    r"|加速比[^\d\n。，,]{0,6}?(?P<d>\d{1,2}(?:\.\d+)?)"
)
# The default nvidia-smi table row: "| N/A 34C P0 61W / 400W | 1MiB / 81920MiB | 30% Default |"
_SMI_TABLE_ROW = re.compile(
    r"\|\s*(?:\d+%|N/A)\s+(?P<temp>\d+)C\s+P\d+\s+(?P<draw>\d+)W\s*/\s*(?P<cap>\d+)W\s*\|[^|\n]*MiB\s*\|\s*(?P<util>\d+)%"
)
# A measured collective bandwidth: "busbw only 8 GB/s", "8GB/s busbw", nccl-tests' "# Avg bus bandwidth : 8.1".
# GB/s with a capital B only: "200 Gb/s" is a NIC's line rate in bits, not a measurement.
_BANDWIDTH_LITERALS = ("busbw", "bus bandwidth", "all_reduce", "allreduce", "all-reduce", "nccl", "NCCL", "带宽", "bandwidth")
_GBS = r"(?P<gbs>\d{1,4}(?:\.\d+)?)\s*(?:GB/s|GB/S|GBps|GB每秒)"
_BANDWIDTH_PATTERNS = [
    re.compile(r"Avg bus bandwidth\s*:\s*(?P<gbs>\d{1,4}(?:\.\d+)?)"),
    re.compile(r"(?i:busbw|bus bandwidth|带宽)[^\d\n。，,]{0,24}?" + _GBS),
    re.compile(_GBS + r"\s*(?:的\s*)?(?i:busbw|bus bandwidth|带宽)"),
    re.compile(r"(?i:all_reduce|allreduce|all-reduce|nccl)[^\n。]{0,60}?" + _GBS),
]
# NICs per node and their line rate: "4x200G NICs", "8 × 400Gb/s IB", "4张200G网卡", "4 200G NICs".
_NIC_LITERALS = ("G", "g")
_NIC_PATTERNS = [
    re.compile(r"(?i)(?<![\d.])(?P<count>\d{1,2})\s*[x×*]\s*(?P<gbps>\d{2,4})\s*(?:g|gb|gbps|gb/s|gbit|gbe)\b"),
    re.compile(
        r"(?i)(?<![\d.])(?P<count>\d{1,2})\s*(?:张|块|个|根|条|ports?\s+of|nics?\s+of|hcas?\s+of|links?\s+of|cards?\s+of)?\s*"
        r"(?P<gbps>\d{2,4})\s*(?:g|gb|gbps|gb/s|gbit|gbe)\b\s*(?:的)?\s*(?:ib|roce|rdma|infiniband|ethernet|以太网)?\s*(?:网卡|nics?|hcas?|ports?|cards?|网口)"
    ),
]
# GPUs in a node that talk over PCIe only: "8 PCIe A100s", "A100 PCIe", "no NVLink", "没有NVLink".
_PCIE_ONLY = re.compile(
    r"(?i)\bpcie\b\s*(?:版|的)?\s*(?:a100|h100|h800|a800|h20|l40s?|l20|l4|a10|a40|rtx|4090|5090|gpus?|cards?|卡|显卡)"
    r"|(?:a100|h100|h800|a800|l40s?|gpus?|cards?|卡)\s*(?:\(|（)?\s*pcie\b"
    r"|\bno\s+nvlink|\bwithout\s+nvlink|没有\s*nvlink|无\s*nvlink|不带\s*nvlink"
)
# GPUs of a node on NVLink: "NVLink", "8x H100 SXM", "an HGX/DGX box" (a line that says "no NVLink" reads as PCIe above).
_LINK_LITERALS = ("pcie", "PCIe", "PCIE", "Pcie", "nvlink", "NVLink", "NVLINK", "NVlink", "sxm", "SXM", "hgx", "HGX", "dgx", "DGX")
_NVLINKED = re.compile(r"(?i)\bnvlink|\bsxm\d?\b|\b[hd]gx\b")
# One node stated: "single node", "on one server", "单机", "一台机器". Not "only one node is slow" (one of several), nor
# one node named as what works ("single machine works", "单机没问题"): that compares it with the multi-node job that fails.
_ONE_NODE_LITERALS = ("single", "Single", "one ", "One ", "单机", "单节点", "单台", "一台")
_WORKS_THERE = r"(?!\s*(?:works|worked|is fine|was fine|runs fine|ran fine|is ok|is okay|没问题|正常|可以|能跑|跑得通|跑通|都正常|跑没问题|跑正常|训练正常|训练没问题))"
_ONE_NODE = re.compile(
    r"(?i)(?:\bsingle[- ](?:\w+[- ]){0,3}?(?:node|server|machine|box|host)\b|\b(?:on|in|our|with) one (?:\w+[- ]){0,3}?(?:node|server|machine|box|host)\b"
    r"|单机|单节点|单台(?:机器|服务器)|(?<![其另])一台(?:机器|服务器|主机))" + _WORKS_THERE
)
# A serving engine named, or one of its start-up settings: the job is inference, whatever the OOM looks like.
_SERVING_LITERALS = ("vllm", "vLLM", "VLLM", "sglang", "SGLang", "SGLANG", "max_model_len", "max-model-len", "gpu_memory_utilization",
                     "gpu-memory-utilization", "mem-fraction-static", "mem_fraction_static", "max_num_seqs", "max-num-seqs")
_TEMPERATURE_LITERALS = ("温度", "temp", "Temp", "TEMP", "°", "℃", "度", "degree", "hot", "Hot", "cool", "therm", "Therm")
# "    GPU Max Operating Temp   : 85 C": nvidia-smi -q lines are limits or readings for the -q parser, not prose.
_SMI_QUERY_LINE = re.compile(r"\s+\S[^:\n]*?\s{2,}:\s")
_TEMPERATURE_PATTERNS = [
    re.compile(
        r"(?i)(?:温度|temp(?:erature)?s?\b)[^\d\n。，,]{0,15}?(\d{2,3})(?:\.\d+)?\s*(?:°\s*C|℃|摄氏度|度|°|C\b)?"
    ),
    re.compile(r"(?i)(?<![\d.])(\d{2,3})(?:\.\d+)?\s*(?:°\s*C|℃|摄氏度|度(?!量)|degrees?\b|deg\s*C\b)"),
]
# "sits at 88 C", "88C": a bare capital C after a figure, looked for on its own lines (no heat word needed).
_BARE_CELSIUS_LITERALS = tuple(f"{digit}{gap}C" for digit in range(10) for gap in ("", " "))
_BARE_CELSIUS = re.compile(r"(?<![\d.:x])(\d{2,3})(?:\.\d+)?\s?C\b")


def parse_symptoms(text: str) -> list[ParsedRecord]:
    """Numbers in a user's description: GPU utilisation ("利用率只有30%") and temperature ("90度", "90°C")."""
    # Keyed by (kind, where the number is): "temperature 90°C" matches both temperature patterns once.
    found: dict[tuple[str, int], tuple[int, dict[str, Value]]] = {}
    for start, end in lines_with(text, ("W |", "W|"), 64):
        for match in first_matches(_SMI_TABLE_ROW.finditer(text, start, end)):
            found[("smi_table", match.start())] = (match.start(), {
                "gpu_util_percent": float(match.group("util")), "temperature_c": float(match.group("temp")),
                "power_draw_w": float(match.group("draw")), "power_cap_w": float(match.group("cap")),
            })  # fmt: skip
    for start, end in lines_with(text, _UTIL_LITERALS, 20):
        for pattern in _UTIL_PATTERNS:
            for match in first_matches(pattern.finditer(text, start, end)):
                values = _utilisation(match)
                if values:
                    found.setdefault(("gpu_util", match.start(1)), (match.start(), values))
    for start, end in lines_with(text, ("利用率", "使用率"), 20):
        match = _HALF_UTIL.search(text, start, end)
        if match:
            found.setdefault(("gpu_util", match.end() - 1), (match.start(), {"gpu_util_percent": _HALF_PERCENT}))
    for start, end in lines_with(text, _BATCH_LITERALS, 20):
        match = _BATCH.search(text, start, end)
        value = number(match.group(1)) if match else None
        if value is not None and value >= 1:
            found.setdefault(("setting", start + 6), (match.start(), {"batch": value}))
    for start, end in lines_with(text, _NODES_LITERALS, 20):
        # "from 1 node to 4 nodes": the most nodes named on a line is the job's size, the smaller its baseline
        match = max(_NODES.finditer(text, start, end), key=lambda m: _node_count(m) or 0, default=None)
        count = _node_count(match) if match else None
        if count:
            found.setdefault(("setting", start + 7), (match.start(), {"nodes": count}))
    for start, end in lines_with(text, _SPEEDUP_LITERALS, 20):
        match = _SPEEDUP.search(text, start, end)
        value = number(next(g for g in match.group("a", "b", "c", "d") if g)) if match else None
        if value is not None and 0 < value <= 64:
            found.setdefault(("setting", start + 8), (match.start(), {"speedup": value}))
    for start, end in lines_with(text, ("worker",), 20):
        for pattern in _WORKERS:
            for match in first_matches(pattern.finditer(text, start, end)):
                found.setdefault(("setting", start), (match.start(), {"dataloader_workers": float(match.group(1))}))
    for start, end in lines_with(text, ("mfu", "MFU", "Mfu"), 4):
        for match in first_matches(_MFU.finditer(text, start, end)):
            value = number(match.group(1) or match.group(2))
            if value is not None and 0 < value <= 100:
                found.setdefault(("setting", start + 5), (match.start(), {"mfu_percent": value}))
    for start, end in lines_with(text, _TEMPERATURE_LITERALS, 20):
        if _SMI_QUERY_LINE.match(text, start, end):
            continue
        for pattern in _TEMPERATURE_PATTERNS:
            for match in first_matches(pattern.finditer(text, start, end)):
                value = number(match.group(1))
                if value is not None and 20 <= value <= 130:
                    found.setdefault(("temperature", match.start(1)), (match.start(), {"temperature_c": value}))
    for start, end in lines_with(text, _BARE_CELSIUS_LITERALS, 8):
        if _SMI_QUERY_LINE.match(text, start, end) or "|" in text[start:end]:
            continue  # nvidia-smi limits and table rows are read by their own parsers
        for match in first_matches(_BARE_CELSIUS.finditer(text, start, end)):
            value = number(match.group(1))
            if value is not None and 20 <= value <= 130:
                found.setdefault(("temperature", match.start(1)), (match.start(), {"temperature_c": value}))
    for start, end in lines_with(text, _BANDWIDTH_LITERALS, 20):
        for pattern in _BANDWIDTH_PATTERNS:
            match = next(first_matches(pattern.finditer(text, start, end)), None)
            value = number(match.group("gbs")) if match else None
            if value is not None and value > 0:
                found.setdefault(("bandwidth", start), (match.start(), {"busbw_gbs": value}))
                break
    for start, end in lines_with(text, _NIC_LITERALS, 20):
        for pattern in _NIC_PATTERNS:
            match = next(first_matches(pattern.finditer(text, start, end)), None)
            count, rate = (number(match.group("count")), number(match.group("gbps"))) if match else (None, None)
            if count and rate and count <= 32 and 10 <= rate <= 1600:
                found.setdefault(("setting", start + 1), (match.start(), {"nics_per_node": count, "nic_gbps": rate}))
                break
    for start, end in lines_with(text, _LINK_LITERALS, 20):
        match = _PCIE_ONLY.search(text, start, end)
        if match:
            found.setdefault(("setting", start + 2), (match.start(), {"interconnect": "pcie"}))
            continue
        match = _NVLINKED.search(text, start, end)
        if match:
            found.setdefault(("setting", start + 2), (match.start(), {"interconnect": "nvlink"}))
    for start, end in lines_with(text, _ONE_NODE_LITERALS, 4):
        match = _ONE_NODE.search(text, start, end)
        if match:
            found.setdefault(("setting", start + 4), (match.start(), {"nodes": 1.0}))
            break
    serving = lines_with(text, _SERVING_LITERALS, 1)
    if serving:
        found.setdefault(("setting", serving[0][0] + 3), (serving[0][0], {"method": "inference"}))
    locator = LineLocator(text)
    hits = sorted(((pos, kind, values) for (kind, _), (pos, values) in found.items()), key=lambda hit: hit[:2])
    return [locator.record("symptoms", kind, pos, values) for pos, kind, values in hits[:MAX_RECORDS]]


def _utilisation(match: re.Match[str]) -> dict[str, Value] | None:
    """A figure or a range in percent: the middle is what rules compare, the ends are what the user said."""
    groups = match.groupdict()
    if groups.get("cn"):
        bounds = _chinese_percent(groups["cn"])
    else:
        low, high = number(groups.get("low")), number(groups.get("high"))
        bounds = (low, high if high is not None else low) if low is not None else None
    if bounds is None or not 0 <= bounds[0] <= bounds[1] <= 100:
        return None
    low, high = bounds
    values: dict[str, Value] = {"gpu_util_percent": (low + high) / 2}
    if high > low:
        values.update(gpu_util_low_percent=low, gpu_util_high_percent=high)
    return values


def _node_count(match: re.Match[str]) -> float | None:
    """"4-node" → 4, "四台机器" → 4, "十台" → 10; a count of zero is no count."""
    written = match.group("count") or match.group("zh")
    if written.isdigit():
        return float(written) or None
    if written in ("两", "二"):
        return 2.0
    tens, _, ones = written.partition("十")
    if not _:
        return float(_DIGIT[written])
    return float((_DIGIT.get(tens, 1) if tens else 1) * 10 + _DIGIT.get(ones, 0))


def _chinese_percent(written: str) -> tuple[float, float] | None:
    """"三十" 30, "三十五" 35, "三四十" 30–40, "三十多" / "三十几" 30–40, "十几" 10–20."""
    tens_part, _, after = written.partition("十")
    tens = [_DIGIT[c] for c in tens_part] or [1]
    low, high = tens[0] * 10, tens[-1] * 10
    if after in ("多", "几"):
        return float(low), float(high + 10)
    ones = _DIGIT.get(after, 0)
    return float(low + ones), float(high + ones)
