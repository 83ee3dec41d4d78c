"""Is a Chinese answer entirely Chinese? The English words in a text, outside a small allow-list.

Allowed: product names (every word of a catalog GPU or model name, vendors), units, and the technical
names Chinese engineers write in Latin letters (ZeRO, LoRA, NVLink, token, logits…). Words with a digit,
an underscore or a dot are identifiers or versions (bf16, q_proj, torch.cat, A100) and pass too; single
letters are symbols in formulas (s, h, K, V); acronyms (BIOS) and camel-case API names (DataLoader) are
names too. Everything else is an untranslated English word.
"""

from __future__ import annotations

import itertools
import re

from knowledge.catalog import load_catalog

UNITS = {
    "b", "kb", "mb", "gb", "tb", "gib", "mib", "kib", "tib", "gb/s", "tflops", "flop", "flops", "flop/s", "w", "kw", "kwh", "h",
    "usd", "cny", "pue", "ms",
}  # fmt: skip
TECH = {
    # parallelism, training and serving
    "zero", "zero-offload", "megatron", "deepspeed", "lora", "qlora", "fsdp", "tp", "pp", "dp", "mfu", "adamw", "adam", "sgd", "moe", "mla", "gqa", "mqa",
    "mlp", "kv", "micro-batch", "dropout", "softmax", "log-softmax", "logits", "token", "max", "min", "sbh", "full_shard",
    "flashattention", "sdpa", "oom", "ecc", "xid", "sxid", "nccl", "nvlink", "nvswitch", "pcie", "infiniband", "roce", "cuda", "cublas",
    "nvidia-smi", "gpu", "cpu", "npu", "hbm", "tdp", "sxm", "gguf", "gptq", "awq", "bitsandbytes", "vllm", "sglang", "lmdeploy", "transformers",
    "pytorch", "deepspeed", "megatron-lm", "liger", "torchtune", "unsloth", "korthikanti", "api", "mig", "ddp", "nvme",
    "rank", "all-to-all", "all-reduce", "all-gather", "reduce-scatter", "verbs",
    # tools and products named as they are
    "python", "ollama", "jupyter", "perfetto", "tensorboard", "nsight", "systems", "fabric", "manager", "jetson", "linux", "safetensors",
    "gpud", "graphs", "dataloader", "dmesg", "gpu-util", "nvidia-uvm", "cuda-compat", "nccl-tests", "nvidia-bug-report", "flight", "recorder", "py-spy",
}  # fmt: skip
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*(?:[-.'][A-Za-z0-9_]+)*")
URL = re.compile(r"https?://\S+")
MARKUP = re.compile(r"<[^<>]+>|%\{[^}]*\}")  # HTML tags (<sub>, <br>) and Plotly placeholders (%{y:.2f})
# Typed as they are: command-line flags (-pl), settings (low_cpu_mem_usage=True), paths (/dev/shm), calls (.item()).
TYPED = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*|\S+=\S+|(?<![\w.])/[\w./-]+|\.\w+\(\)")
# A Latin-only gloss after a Chinese term, "命令缓冲流（push buffer）", or a quoted log text, “limited by”.
GLOSS = re.compile(r"（[\x20-\x7e]+）|“[\x20-\x7e]+”")


def _catalog_words() -> set[str]:
    catalog = load_catalog()
    names = [g.name for g in catalog.gpus] + [g.vendor for g in catalog.gpus] + [m.name for m in catalog.models]
    names += [g.architecture for g in catalog.gpus] + [m.family for m in catalog.models]
    return {w.casefold() for name in names for w in WORD.findall(name)}


ALLOWED = UNITS | TECH | _catalog_words()


def english_words(text: str) -> list[str]:
    """The words of ``text`` a Chinese reader should not have to read in English."""
    found = []
    for word in WORD.findall(GLOSS.sub(" ", TYPED.sub(" ", MARKUP.sub(" ", URL.sub(" ", text))))):
        folded = word.casefold()
        if len(word) == 1 or any(c.isdigit() or c in "_." for c in word) or folded in ALLOWED:
            continue  # a symbol, an identifier or version, or an allowed name
        if word.isupper() or any(a.islower() and b.isupper() for a, b in itertools.pairwise(word)):
            continue  # an acronym (BIOS, DCGM) or a camel-case API name (DataLoader)
        if "-" in word and all(part.casefold() in ALLOWED or any(c.isdigit() for c in part) for part in word.split("-")):
            continue  # GPU-h, ZeRO-3, TP-PP
        found.append(word)
    return found
