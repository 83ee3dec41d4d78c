"""Bytes per stored weight and per cached key/value for every format the memory estimator knows.

Quantised checkpoints rarely quantise everything: GPTQ, AWQ, bitsandbytes and FP8 exports keep
token embeddings, the LM head and norms in 16-bit, and Meta's Llama-3.1-405B FP8 release only
quantises MLP weights. ``WeightFormat.scope`` records which weights get ``bits``; the rest stay
at 2 bytes. GGUF figures are whole-file averages (every tensor included), so their scope is "all".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from knowledge.bilingual import AdvisorError, Text
from knowledge.number_formats import number_formats
from knowledge.wording import shipped

NAMES = shipped("precision_text.yaml")

Scope = Literal["all", "linear", "mlp"]

# llama.cpp `llama-quantize --help` lists each GGUF type's file size for Llama-3-8B
# (8,030,261,248 parameters) in GiB; size × 2^30 × 8 / params gives the real bits per weight,
# output head and embedding tensors included. Source: ggml-org/llama.cpp tools/quantize/quantize.cpp.
LLAMA3_8B_PARAMS = 8_030_261_248
GGUF_LLAMA3_8B_GIB = {
    "q8_0": 7.96, "q6_k": 6.14, "q5_k_m": 5.33, "q5_0": 5.21,
    "q4_k_m": 4.58, "q4_0": 4.34, "q3_k_m": 3.74, "q2_k": 2.96,
}  # fmt: skip
GGUF_SOURCE = "llama.cpp llama-quantize type table (file size @ Llama-3-8B, GiB)"
# Unsloth's dynamic GGUFs keep attention and the dense layers at 4–6 bits and push the MoE experts lower;
# the name gives the experts' bits, the file size (GB) of DeepSeek-R1 671B gives the average over all weights.
DEEPSEEK_R1_PARAMS = 671e9
DYNAMIC_GGUF_GB = {"ud-iq1_s": 131, "ud-iq1_m": 158, "ud-iq2_xxs": 183, "ud-q2_k_xl": 212}
DYNAMIC_GGUF_NAME = {"ud-iq1_s": "1.58-bit", "ud-iq1_m": "1.73-bit", "ud-iq2_xxs": "2.22-bit", "ud-q2_k_xl": "2.51-bit"}
DYNAMIC_GGUF_SOURCE = "Unsloth, 'Run DeepSeek R1 Dynamic 1.58-bit' (unsloth.ai/blog/deepseekr1-dynamic, 2025-01-27): DeepSeek-R1 GGUF sizes"


def gguf_bits(name: str) -> float:
    return GGUF_LLAMA3_8B_GIB[name] * 2**30 * 8 / LLAMA3_8B_PARAMS


def group_bits(bits: int, group_size: int) -> float:
    """GPTQ/AWQ storage: packed weights + one fp16 scale and one packed zero-point per group."""
    return bits + (16 + bits) / group_size


@dataclass(frozen=True)
class WeightFormat:
    id: str
    bits: float  # per weight inside `scope`, scales and zero-points included
    scope: Scope  # which weights use `bits`; everything else stays 16-bit
    quantized: bool
    label: str
    source: str
    label_zh: str = ""  # Chinese display name; empty when the English one is only names and numbers

    @property
    def bytes(self) -> float:
        return self.bits / 8

    @property
    def name_zh(self) -> str:
        return self.label_zh or self.label


# NVFP4 and MXFP4 are defined, with their primary sources, in knowledge/number_formats.yaml: bits per value
# there include each value's share of its block's scale (NVFP4 4.5, MXFP4 4.25).
BLOCK_FORMATS = {f.id: f for f in number_formats().formats}
# Which chips run a format in their tensor cores; elsewhere engines dequantise it (emulation: memory saved, no FP4 speed-up).
FP4_NATIVE_VENDORS = {f.id: frozenset(f.native_vendors) for f in BLOCK_FORMATS.values()}


# FP8 compute needs FP8 tensor cores (Ada, Hopper, Blackwell; MI300); Ampere (A100/A800), Volta and Ascend 910B have none.
# Source: vLLM, "Supported Hardware" quantization matrix (docs.vllm.ai/en/v0.9.2/features/quantization/supported_hardware.html, 2025).
FP8_FORMATS = frozenset({"fp8", "fp8-mlp"})


def computes_in_fp8(format_id: str, fp8_tflops: float | None) -> bool:
    """Whether a chip runs ``format_id`` as stored: an FP8 checkpoint needs FP8 tensor cores; other formats are not FP8."""
    return format_id not in FP8_FORMATS or bool(fp8_tflops)


def runs_natively(format_id: str, vendor: str, fp4_tflops: float | None) -> bool:
    """Whether a chip computes in ``format_id`` directly: FP4 formats need FP4 tensor cores (Blackwell; MXFP4 also MI355X)."""
    vendors = FP4_NATIVE_VENDORS.get(format_id)
    return vendors is None or (bool(fp4_tflops) and vendor in vendors)


def _fmt(id: str, bits: float, scope: Scope, label: str | Text, source: str, *, quantized: bool = True) -> WeightFormat:
    """A format; a ``Text`` label carries its Chinese name, a plain one (letters and numbers only) has none."""
    name = label if isinstance(label, Text) else Text(en=label, zh="")
    return WeightFormat(id, bits, scope, quantized, name.en, source, name.zh)


BNB_DOCS = "bitsandbytes / transformers BitsAndBytesConfig docs; QLoRA paper arXiv:2305.14314 §2"
WEIGHT_FORMATS: dict[str, WeightFormat] = {
    f.id: f
    for f in (
        _fmt("fp32", 32, "all", "FP32", "IEEE float32", quantized=False),
        _fmt("bf16", 16, "all", "BF16", "bfloat16", quantized=False),
        _fmt("fp16", 16, "all", "FP16", "IEEE float16", quantized=False),
        _fmt("fp8", 8, "linear", NAMES.text("weight_formats.fp8"),
             "FP8 W8 checkpoints (llm-compressor, vLLM fp8): per-tensor/channel scales; embeddings and LM head stay 16-bit"),
        _fmt("fp8-mlp", 8, "mlp", NAMES.text("weight_formats.fp8-mlp"),
             "Meta Llama-3.1-405B-Instruct-FP8: row-wise FP8 on MLP weights of all but the first and last layers; attention in BF16"),
        *(_fmt(f.id, f.bits_per_value, "linear", NAMES.text(f"weight_formats.{f.id}"), f.cited) for f in BLOCK_FORMATS.values()),
        _fmt("int8", 8, "linear", NAMES.text("weight_formats.int8"), "W8 weight-only / W8A8: per-channel scales are negligible; embeddings and LM head stay 16-bit"),
        _fmt("int4", 4, "linear", NAMES.text("weight_formats.int4"), "Plain 4-bit weights, scale overhead ignored (use gptq-int4/awq-int4 for group scales)"),
        _fmt("bnb-int8", 8, "linear", "bitsandbytes LLM.int8()", BNB_DOCS + " (one fp32 scale per row: negligible)"),
        _fmt("bnb-4bit", 4 + 32 / 64, "linear", NAMES.text("weight_formats.bnb-4bit"), BNB_DOCS + " (one fp32 absmax per 64 weights)"),
        _fmt("nf4", 4 + 8 / 64 + 32 / (64 * 256), "linear", NAMES.text("weight_formats.nf4"), BNB_DOCS + " (8-bit absmax per 64, fp32 per 256 blocks)"),
        *(
            _fmt(name, gguf_bits(name), "all", f"GGUF {name.upper()}", GGUF_SOURCE)
            for name in GGUF_LLAMA3_8B_GIB
        ),
        *(
            _fmt(name, gb * 1e9 * 8 / DEEPSEEK_R1_PARAMS, "all", NAMES.text("weight_formats.dynamic_gguf", name=DYNAMIC_GGUF_NAME[name], id=name.upper()),
                 DYNAMIC_GGUF_SOURCE)
            for name, gb in DYNAMIC_GGUF_GB.items()
        ),
    )
}
GROUPED_FORMATS = {"gptq-int4": 4, "gptq-int8": 8, "awq-int4": 4}  # bits; size depends on group_size
GROUPED_SOURCE = "AutoGPTQ / AutoAWQ packing: int32-packed weights, fp16 scale + packed zero per group; embeddings and LM head stay 16-bit"

ALIASES = {
    "float32": "fp32", "f32": "fp32", "full": "fp32",
    "bfloat16": "bf16", "float16": "fp16", "half": "fp16", "f16": "fp16",
    "e4m3": "fp8", "fp8e4m3": "fp8", "float8": "fp8", "w8a8fp8": "fp8", "fp8mlp": "fp8-mlp", "fp8ffn": "fp8-mlp",
    "nvfp4": "nvfp4", "nvfp4w4a4": "nvfp4", "mxfp4": "mxfp4", "mxfp4moe": "mxfp4",
    "w8a8": "int8", "w8": "int8", "w4": "int4", "w4a16": "int4",
    "gptq": "gptq-int4", "gptq4": "gptq-int4", "gptqint4": "gptq-int4", "gptq8": "gptq-int8", "gptqint8": "gptq-int8",
    "awq": "awq-int4", "awqint4": "awq-int4", "awq4": "awq-int4",
    "bnbint8": "bnb-int8", "llmint8": "bnb-int8", "loadin8bit": "bnb-int8", "bnb8bit": "bnb-int8",
    "bnb4bit": "bnb-4bit", "loadin4bit": "bnb-4bit", "fp4": "bnb-4bit", "bnbfp4": "bnb-4bit",
    "nf4": "nf4", "bnbnf4": "nf4", "qlora": "nf4", "nf4dq": "nf4",
    "q8": "q8_0", "q6": "q6_k", "q5km": "q5_k_m", "q5k": "q5_k_m", "q5": "q5_0",
    "q4km": "q4_k_m", "q4k": "q4_k_m", "q4": "q4_0", "q3km": "q3_k_m", "q3k": "q3_k_m", "q2": "q2_k",
    "158bit": "ud-iq1_s", "iq1s": "ud-iq1_s", "173bit": "ud-iq1_m", "iq1m": "ud-iq1_m", "222bit": "ud-iq2_xxs", "iq2xxs": "ud-iq2_xxs",
    "251bit": "ud-q2_k_xl", "q2kxl": "ud-q2_k_xl",
}  # fmt: skip


def _key(text: str) -> str:
    return re.sub(r"[\s\-_.()/]+", "", text.strip().lower())


_LOOKUP = {_key(k): k for k in (*WEIGHT_FORMATS, *GROUPED_FORMATS)} | {_key(k): v for k, v in ALIASES.items()}


def is_gguf(format_id: str) -> bool:
    """A llama.cpp file format: its engines keep the weights as stored."""
    return format_id in GGUF_LLAMA3_8B_GIB or format_id in DYNAMIC_GGUF_GB


def known_weight_formats() -> list[str]:
    return [*WEIGHT_FORMATS, *GROUPED_FORMATS]


def weight_format(name: str, group_size: int = 128) -> WeightFormat:
    """The storage format called ``name`` (any common spelling); unknown names raise ``AdvisorError``."""
    canonical = _LOOKUP.get(_key(name))
    if canonical is None:
        raise AdvisorError(
            "unknown_precision",
            **NAMES.text("errors.unknown_precision", name=name).model_dump(),
            suggestions=known_weight_formats(),
        )
    if canonical in GROUPED_FORMATS:
        bits = GROUPED_FORMATS[canonical]
        label = NAMES.text("weight_formats.grouped", id=canonical.upper(), group=group_size)
        return _fmt(canonical, group_bits(bits, group_size), "linear", label, GROUPED_SOURCE)
    return WEIGHT_FORMATS[canonical]


@dataclass(frozen=True)
class KVFormat:
    id: str
    bytes: float  # per cached element
    scaled: bool  # integer formats keep one fp32 scale per token, head and K/V

    def bytes_per_element(self, head_dim: int) -> float:
        return self.bytes + (4 / head_dim if self.scaled else 0.0)


# Integer KV caches carry per-token-head fp32 scales (vLLM kv_cache_interface; Qwen's int8 cache
# stores scale and zero-point likewise); FP8 caches use per-tensor scales, negligible here.
KV_FORMATS = {
    "fp32": KVFormat("fp32", 4, False),
    "bf16": KVFormat("bf16", 2, False),
    "fp16": KVFormat("fp16", 2, False),
    "fp8": KVFormat("fp8", 1, False),
    "int8": KVFormat("int8", 1, True),
    "int4": KVFormat("int4", 0.5, True),
    **{f.id: KVFormat(f.id, f.bits_per_value / 8, False) for f in BLOCK_FORMATS.values()},  # block scales are inside the bits
}
KV_ALIASES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "half": "fp16", "fp8e4m3": "fp8",
              "fp8e5m2": "fp8", "e4m3": "fp8", "e5m2": "fp8", "q8": "int8", "q80": "int8", "q4": "int4", "q40": "int4"}  # fmt: skip


def kv_format(name: str) -> KVFormat:
    key = _key(name)
    key = KV_ALIASES.get(key, key)
    if key not in KV_FORMATS:
        raise AdvisorError(
            "unknown_kv_precision",
            **NAMES.text("errors.unknown_kv_precision", name=name).model_dump(),
            suggestions=list(KV_FORMATS),
        )
    return KV_FORMATS[key]
