"""Bilingual labels for catalog and tool enums, shared by the chat answers and the web UI: (English, 中文);
and the one rule for choosing between the two: Chinese for "zh", English for anything else.

Tool results carry machine values ('inference', 'months', 'datacenter'); people see these labels.
"""

from __future__ import annotations

VERDICT = {
    "fits": ("✅ Fits", "✅ 放得下"),
    "tight": ("⚠️ Tight fit", "⚠️ 偏紧"),
    "does_not_fit": ("❌ Does not fit", "❌ 放不下"),
}
CHINA_STATUS = {
    "available": ("on sale", "可正常购买"),
    "export-controlled": ("export-controlled", "出口管制"),
    "china-variant": ("China variant", "中国特供版"),
    "second-hand": ("second-hand only", "仅存量/二手"),
    "licensed": ("case-by-case US licence", "需美国逐案许可"),
    "domestic": ("Chinese domestic chip", "国产"),
    "not-sold": ("not sold in mainland China", "中国大陆未销售"),
}
SEGMENT = {
    "datacenter": ("Data centre", "数据中心"),
    "workstation": ("Workstation", "工作站"),
    "consumer": ("Consumer", "消费级"),
    "apple": ("Apple", "Apple"),
}
MODE = {"inference": ("Inference (serving)", "推理（部署）"), "training": ("Training / fine-tuning", "训练 / 微调")}
METHOD = {
    "full": ("Full fine-tune", "全参微调"),
    "lora": ("LoRA", "LoRA"),
    "qlora": ("QLoRA (4-bit base)", "QLoRA（4 位量化基座）"),
    "freeze": ("Freeze (train the last layers)", "冻结（只训练最后几层）"),
}
TASK = {
    "inference": ("Inference (serving)", "推理部署"),
    "lora": ("LoRA fine-tune", "LoRA 微调"),
    "qlora": ("QLoRA fine-tune", "QLoRA 微调"),
    "full_finetune": ("Full fine-tune", "全参微调"),
    "pretrain": ("Pre-training", "预训练"),
}
ZERO_STAGE = {
    0: ("0 (no sharding)", "0（不分片）"),
    1: ("1 (optimizer states sharded)", "1（切分优化器状态）"),
    2: ("2 (+ gradients)", "2（再切分梯度）"),
    3: ("3 (+ weights)", "3（再切分权重）"),
}
CURRENCY = {"USD": ("US dollar (USD)", "美元（USD）"), "CNY": ("Chinese yuan (CNY)", "人民币（CNY）")}
OBJECTIVE = {
    "cheapest": ("Cheapest purchase", "采购最便宜"),
    "fastest": ("Fastest", "最快"),
    "cloud": ("Lowest cloud cost", "云上最省"),
    "china": ("Buyable in China", "国内可买"),
    "budget": ("Within budget", "预算内"),
    "power": ("Least power", "功耗最低"),
    "memory": ("Most memory per dollar", "每元显存最多"),
}
# Serving engines go by their product names in both languages.
ENGINE = {
    "vllm": ("vLLM", "vLLM"), "sglang": ("SGLang", "SGLang"), "trtllm": ("TensorRT-LLM", "TensorRT-LLM"),
    "lmdeploy": ("LMDeploy", "LMDeploy"), "hf": ("HF transformers", "HF transformers"), "llamacpp": ("llama.cpp", "llama.cpp"),
    "ollama": ("Ollama (llama.cpp)", "Ollama（llama.cpp）"), "mlc": ("MLC-LLM", "MLC-LLM"), "exllamav2": ("ExLlamaV2", "ExLlamaV2"),
    "autoawq": ("AutoAWQ", "AutoAWQ"),
}  # fmt: skip
BOUND = {
    "bandwidth": ("memory bandwidth", "显存带宽"),
    "compute": ("compute", "算力"),
    "overhead": ("engine overhead and GPU-to-GPU syncs", "引擎开销与卡间同步"),
    "capacity": ("memory capacity: the KV cache limits the batch", "显存容量：KV 缓存限制了并发"),
}
MFU_SOURCE = {"user": ("given", "用户给定"), "default": ("default table", "按默认表")}
# Units of tool line items (`LineItem.unit`); money units are formatted with the currency symbol instead.
UNITS = {
    "months": ("months", "个月"),
    "days": ("days", "天"),
    "hours": ("hours", "小时"),
    "GPU-hours": ("GPU-hours", "卡时"),
    "GPUs": ("GPUs", "张卡"),
    "servers": ("servers", "台"),
    "years": ("years", "年"),
    "fraction": ("", ""),
    "ms": ("ms", "毫秒"),
    "tokens/s": ("tokens/s", "token/s"),
    "sequences": ("sequences", "条序列"),
    "share": ("share", "占比"),
    "share of peak": ("share of peak", "峰值占比"),
    "share of dense BF16 peak": ("share of dense BF16 peak", "稠密 BF16 峰值占比"),
    "factor": ("factor", "倍"),
}
UNIT_NOTE = (
    "GB = 10⁹ bytes; a card sold as “80 GB” holds 80 GiB = 85.9 GB; nvidia-smi shows MiB.",
    "GB = 10⁹ 字节；标称“80 GB”的显卡实为 80 GiB = 85.9 GB；nvidia-smi 显示的是 MiB。",
)


def pick(language: str, en: str, zh: str) -> str:
    return zh if language == "zh" else en


def label(pair: tuple[str, str], language: str) -> str:
    return pick(language, *pair)


def enum_label(table: dict, value, language: str) -> str:
    """The label of ``value`` in one of the tables above; an unknown value is shown as it is."""
    return label(table[value], language) if value in table else str(value)


def unit(code: str, language: str) -> str:
    """'months' → '个月'; per-hour units ('USD/GPU-hour') translate their denominator; others stay ('GB', 'kWh')."""
    if code.endswith("/GPU-hour"):
        return f"{code.removesuffix('/GPU-hour')}/{pick(language, 'GPU-hour', '卡时')}"
    return enum_label(UNITS, code, language)


def choices(table: dict, language: str, values=None) -> list[tuple[str, object]]:
    """(label, value) pairs for a dropdown, in ``values`` order (default: the table's)."""
    return [(enum_label(table, v, language), v) for v in (values if values is not None else table)]


# Values a troubleshooting parser read from a log, named in words; a field missing here is named from its
# words and unit suffix (``answers.trouble._parsed``), never shown as the parser's key.
PARSED = {
    "format": ("message format", "报错格式"), "requested_mib": ("asked for", "申请"), "total_mib": ("GPU total", "GPU 总显存"),
    "free_mib": ("free", "空闲"), "allocated_mib": ("allocated by PyTorch", "PyTorch 已分配"), "reserved_mib": ("reserved by PyTorch", "PyTorch 已预留"),
    "reserved_unallocated_mib": ("reserved but unallocated", "已预留未分配"), "this_process_mib": ("this process", "本进程"),
    "other_processes_mib": ("other processes", "其他进程"), "other_process_count": ("other processes", "其他进程数"), "gpu_index": ("GPU", "GPU 编号"),
    "xid": ("Xid", "Xid"), "pci": ("PCI bus", "PCI 总线"), "pid": ("process id", "进程号"), "process": ("process", "进程"),
    "timeout_ms": ("timeout", "超时"), "timeout_min": ("timeout", "超时"), "ran_for_ms": ("ran for", "已运行"), "rank": ("rank", "rank"),
    "seq_num": ("collective number", "集合通信序号"), "op_type": ("operation", "通信操作"), "nccl_version": ("NCCL version", "NCCL 版本"),
    "error": ("error", "错误"), "peer": ("peer", "对端"), "iface": ("network interface", "网卡"),
}  # fmt: skip
PARSED_UNITS = {"_mib": " MiB", "_ms": " ms", "_min": " min", "_c": " °C", "_w": " W", "_bytes": " bytes", "_gbps": " GB/s", "_pct": "%"}
