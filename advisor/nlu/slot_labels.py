"""Slot names in words, for answers that mention what the user stated."""

from __future__ import annotations

LABELS: dict[str, tuple[str, str]] = {
    "model": ("model", "模型"), "size": ("model size", "模型规模"), "precision": ("precision", "精度"),
    "kv_precision": ("KV cache precision", "KV 缓存精度"), "context": ("context length", "上下文长度"),
    "prompt_tokens": ("prompt length", "输入长度"), "output_tokens": ("output length", "输出长度"),
    "batch": ("batch size", "批大小"), "concurrency": ("concurrent users", "并发数"), "gpu": ("GPU", "显卡"), "other_gpu": ("GPU", "显卡"),
    "gpu_memory": ("GPU memory", "显存大小"), "gpu_count": ("number of GPUs", "卡数"), "gpus_per_server": ("GPUs per server", "每台卡数"),
    "server_count": ("number of servers", "服务器台数"), "tp": ("tensor parallelism", "张量并行"),
    "pp": ("pipeline parallelism", "流水线并行"), "dp": ("data parallelism", "数据并行"),
    "sharding": ("ZeRO/FSDP sharding", "ZeRO/FSDP 切分"), "method": ("task", "任务类型"), "optimizer": ("optimizer", "优化器"),
    "recompute": ("activation recomputation", "激活重计算"), "gpu_form": ("GPU variant", "显卡版本"),
    "training_tokens": ("training data", "训练数据量"), "epochs": ("epochs", "训练轮数"), "deadline": ("deadline", "期限"), "budget": ("budget", "预算"),
    "server_price": ("server price", "服务器价格"), "cloud_price": ("rental price", "租用价格"), "discount": ("rental discount", "租用折扣"), "mfu": ("MFU", "MFU"),
    "electricity_price": ("electricity price", "电价"), "rack_power": ("rack power budget", "单机柜功率"), "pue": ("PUE", "PUE"), "utilisation": ("utilisation", "利用率"),
    "horizon": ("time horizon", "年限"), "region": ("region", "地区"), "objective": ("priority", "优先目标"),
    "engine": ("engine", "推理引擎"), "speed_target": ("speed target", "速度目标"), "claim": ("rule of thumb", "经验法则"), "audience": ("users", "使用人群"),
    "already_tried": ("already tried", "已经试过"),
}  # fmt: skip


def slot_label(slot: str, language: str) -> str:
    en, zh = LABELS.get(slot, (slot.replace("_", " "), slot.replace("_", " ")))
    return zh if language == "zh" else en


def said(slot: str, surface: str, language: str) -> str:
    """A stated value under its slot's name, as the user wrote it: 'number of GPUs “8卡”'."""
    return f"{slot_label(slot, language)} “{surface}”"
