"""Keyword tables for the labels users mention in words: precision, workload, technique, region, GPU hints.

Each table maps a canonical label to a pattern run on ``normalize_text`` output (NFKC, lower
case). ASCII terms get word boundaries so "lora" does not fire inside "qlora" or "explorable";
Chinese terms need none.
"""

from __future__ import annotations

import re

from advisor.fast_regex import compile_guarded


def term(pattern: str) -> str:
    """Wrap an ASCII alternative in letter/digit boundaries."""
    return rf"(?<![a-z0-9])(?:{pattern})(?![a-z0-9])"


Table = list[tuple[str, re.Pattern[str]]]


def table(rows: list[tuple[str, str]]) -> Table:
    return [(label, compile_guarded(pattern)) for label, pattern in rows]


PRECISIONS = table([
    ("fp32", term(r"fp32|float32") + r"|单精度|全精度"),
    ("fp16", term(r"fp16|float16|half[\s-]precision") + r"|半精度"),
    ("bf16", term(r"bf16|bfloat16")),
    ("fp8", term(r"fp8|float8|e4m3|e5m2")),
    ("fp4", term(r"fp4|nvfp4|mxfp4")),
    ("int8", term(r"int8|8[\s-]?bits?|w8a8|w8a16|q8_0|llm\.int8") + r"|8\s*位量化|8比特"),
    # QLoRA is defined as LoRA on a 4-bit (NF4) base model, so it implies int4 weights.
    ("int4", term(r"int4|4[\s-]?bits?|w4a16|nf4|q4(?:_k)?(?:_[msl0])?|qlora") + r"|4\s*位量化|4比特"),
])  # fmt: skip

QUANTIZATION = table([
    ("gguf", term("gguf")),
    ("gptq", term("gptq")),
    ("awq", term("awq")),
    ("bitsandbytes", term(r"bitsandbytes|bnb")),
    ("exl2", term("exl2")),
    ("smoothquant", term("smoothquant")),
])
# llama.cpp level names are kept verbatim ("q4_k_m"): they are the user's exact choice.
LLAMA_CPP_LEVEL = compile_guarded(term(r"q[2-8]_(?:k_[sml]|k|0|1)"))

WORKLOADS = table([
    ("qlora", term("qlora")),
    ("lora", term(r"lora|peft") + r"|低秩"),
    ("full_finetune", r"全参数?(?:微调|训练|finetune)|全量(?:参数)?微调|" + term(r"full[\s-]*(?:parameter[\s-]*)?(?:fine[\s-]*tun\w*|ft)|full[\s-]*parameter")),
    ("pretrain", r"预训练|从头训练|从零训练|" + term(r"pre[\s-]?train\w*|from[\s-]scratch")),
    ("finetune", r"微调|精调|" + term(r"fine[\s-]?tun\w*|finetun\w*|sft")),
    ("train", r"训练|训模型|" + term(r"train|training|trains|trained")),
    ("inference", r"推理|部署|上线|并发|吞吐|" + term(r"inference|infer|serving|serve|deploy\w*|vllm|sglang|ollama|llama\.cpp|tgi|tensorrt-llm|qps|chatbot")),
])  # fmt: skip
# A generic label is dropped when a more specific one is also mentioned ("全参微调" also contains "微调").
GENERIC_WORKLOADS = {"finetune": {"lora", "qlora", "full_finetune"}, "train": {"pretrain", "finetune", "lora", "qlora", "full_finetune"}}

TECHNIQUES = table([
    ("zero-3", term(r"zero[\s-]?(?:stage[\s-]?)?3")),
    ("zero-2", term(r"zero[\s-]?(?:stage[\s-]?)?2")),
    ("zero-1", term(r"zero[\s-]?(?:stage[\s-]?)?1")),
    ("fsdp", term("fsdp")),
    ("offload", term(r"offload\w*") + r"|卸载到(?:cpu|内存)"),
    ("deepspeed", term("deepspeed")),
    ("activation-checkpointing", term(r"(?:activation|gradient)[\s-]*checkpoint\w*|recompute") + r"|激活值?检查点|梯度检查点|重计算"),
    ("tensor-parallel", term(r"tensor[\s-]*parallel\w*|tp\s*=") + r"|张量并行"),
    ("pipeline-parallel", term(r"pipeline[\s-]*parallel\w*|pp\s*=") + r"|流水线并行"),
    ("flash-attention", term(r"flash[\s-]*attn\w*|flash[\s-]*attention")),
    ("mixed-precision", term(r"mixed[\s-]*precision|amp") + r"|混合精度"),
    ("gradient-accumulation", term(r"gradient[\s-]*accumulation") + r"|梯度累积"),
])  # fmt: skip

# "global" first: "outside China" must not be read as China.
REGIONS = table([
    ("global", r"海外|国外|境外|" + term(r"overseas|abroad|outside\s+(?:of\s+)?(?:mainland\s+)?china|international")),
    ("cn", r"国内|中国|大陆|境内|国产|" + term(r"china|mainland|prc")),
])  # fmt: skip

# Words that narrow the choice without naming one GPU: "H卡" is any H-series part.
GPU_HINTS = table([
    ("series:h", term(r"h") + r"(?:卡|系列)|" + term(r"h[\s-]series")),
    ("series:a", term(r"a") + r"系列|" + term(r"a[\s-]series")),
    ("vendor:amd", term(r"a") + r"卡|" + term(r"amd|radeon|instinct|rocm")),
    ("vendor:nvidia", term(r"n") + r"卡|英伟达|老黄|" + term(r"nvidia|cuda")),
    ("vendor:huawei", r"昇腾|华为|" + term(r"ascend|huawei|cann")),
    ("vendor:domestic", r"国产(?:卡|gpu|芯片|算力|显卡|加速卡)"),
    ("segment:consumer", r"消费级|游戏卡|" + term(r"consumer|gaming")),
    ("segment:datacenter", r"数据中心|服务器级|" + term(r"datacenter|data[\s-]center")),
])  # fmt: skip


def labels_in(text: str, rows: Table) -> list[str]:
    """Labels whose pattern occurs in ``text``, in order of first appearance."""
    hits = [(match.start(), label) for label, pattern in rows if (match := pattern.search(text))]
    return [label for _, label in sorted(hits)]
