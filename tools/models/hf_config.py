"""Turn a Hugging Face ``config.json`` (text or parsed dict) into a ``ModelSpec``.

Understands the field names of Llama, Qwen (1/2/2.5/3, MoE), Mistral/Mixtral, Gemma 2/3,
DeepSeek-V2/V3 (MLA), GPT-BigCode/GPT-2 and ChatGLM/GLM-4 configs, plus multimodal
wrappers that nest the language model under ``text_config``. The parameter count is
computed from the shapes (``tools.models.param_count``), never taken on trust.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import ValidationError

from knowledge.bilingual import AdvisorError
from knowledge.models import ModelSpec
from knowledge.wording import shipped
from tools.models.param_count import count_params

TEXT = shipped("model_text.yaml")

MAX_PARAMS = 100e12  # beyond any real model by two orders of magnitude: a typo, not a config
DEFAULT_CONTEXT = 4096  # used only when a config states no context length at all
# Architectures with a classic 2-matrix MLP (everything else here uses SwiGLU/GeGLU).
UNGATED_TYPES = {"gpt_bigcode", "gpt2", "gpt_neox", "gptj", "falcon", "starcoder2", "opt", "bloom", "phi"}
# Families whose config class ties input and output embeddings unless told otherwise.
TIED_BY_DEFAULT = {"gpt_bigcode", "gpt2", "gemma", "gemma2", "gemma3", "gemma3_text"}
# Values a config class supplies when the published config.json leaves them out
# (e.g. Gemma 3's text_config has no vocab_size): transformers' Gemma3TextConfig defaults.
CLASS_DEFAULTS: dict[str, dict[str, int]] = {
    "gemma3_text": {"vocab_size": 262208, "max_position_embeddings": 131072, "sliding_window_pattern": 6},
}

SYNONYMS: dict[str, tuple[str, ...]] = {
    "hidden": ("hidden_size", "n_embd", "d_model", "dim"),
    "layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "heads": ("num_attention_heads", "n_head", "n_heads"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv"),
    "head_dim": ("head_dim", "kv_channels"),
    "ffn": ("intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"),
    "vocab": ("padded_vocab_size", "vocab_size", "n_vocab"),
    "context": ("seq_length", "max_position_embeddings", "n_positions", "max_sequence_length"),
    "experts": ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"),
}


def config_error(en: str, zh: str) -> AdvisorError:
    return AdvisorError("invalid_model_config", en, zh)


def parse_config_text(text: str) -> dict[str, Any]:
    """JSON text → dict, with a bilingual error that points at the broken spot."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise config_error(**TEXT.text("config.not_json", line=exc.lineno, column=exc.colno, reason=exc.msg).model_dump()) from None
    except (ValueError, RecursionError):  # a number with thousands of digits, or nesting deeper than the stack
        raise config_error(**TEXT.text("config.too_deep").model_dump()) from None
    if not isinstance(data, dict):
        raise config_error(**TEXT.text("config.not_object").model_dump())
    return data


class ConfigReader:
    """Reads positive integers from a config under any of their known names."""

    def __init__(self, config: dict[str, Any]):
        text_config = config.get("text_config")
        # Multimodal checkpoints (Gemma 3, Llava...) keep the language model in text_config;
        # top-level keys (vocab_size, tie_word_embeddings) still apply when it omits them.
        fields = {**config, **text_config} if isinstance(text_config, dict) else dict(config)
        self.model_type = str(fields.get("model_type") or "").lower()
        self.fields = {**CLASS_DEFAULTS.get(self.model_type, {}), **fields}

    def value(self, key: str) -> Any:
        return self.fields.get(key)

    def integer(self, *names: str) -> int | None:
        """First of ``names`` present with a value; it must be a positive whole number."""
        for name in names:
            raw = self.fields.get(name)
            if raw is None:
                continue
            if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or raw != int(raw):
                raise config_error(**TEXT.text("config.not_whole", name=name, raw=repr(raw)).model_dump())
            if raw <= 0:
                raise config_error(**TEXT.text("config.not_positive", name=name, raw=repr(raw)).model_dump())
            return int(raw)
        return None

    def field(self, key: str) -> int | None:
        return self.integer(*SYNONYMS[key])

    def required(self, key: str) -> int:
        found = self.field(key)
        if found is None:
            names = " / ".join(SYNONYMS[key])
            raise config_error(**TEXT.text("config.missing_field", names=names).model_dump())
        return found


def spec_from_hf_config(config: dict[str, Any], name: str | None = None) -> ModelSpec:
    """A validated ``ModelSpec`` for a parsed config.json, with its parameter count computed."""
    if not isinstance(config, dict):
        raise config_error(**TEXT.text("config.not_a_dict").model_dump())
    reader = ConfigReader(config)
    fields = _shape_fields(reader)
    fields.update(_moe_fields(reader, fields))
    fields.update(_window_fields(reader, fields))
    fields["attention"] = _attention_kind(fields)
    label = name or str(config.get("_name_or_path") or reader.model_type or "custom model")
    label_zh = TEXT.pick("config.custom_model", "zh") if label == "custom model" else None
    try:
        draft = ModelSpec(id="custom", name=label, name_zh=label_zh, family="custom", params_b=1.0, source="pending", **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise config_error(**TEXT.text("config.impossible_value", where=where, reason=first["msg"]).model_dump()) from None
    counted = count_params(draft)
    if not 0 < counted.total <= MAX_PARAMS:
        raise config_error(**TEXT.text("config.implausible_size", total=counted.total).model_dump())
    size_b = counted.total / 1e9
    return draft.model_copy(
        update={
            "id": f"custom-{_slug(reader.model_type or 'model')}-{size_b:.3g}b",
            "family": reader.model_type or "custom",
            "params_b": size_b,
            "active_params_b": counted.active / 1e9 if draft.moe_experts else None,
            "source": (
                f"Parsed from a user-supplied Hugging Face config.json (model_type '{reader.model_type or '?'}'); "
                "parameter count computed from the shapes by tools/param_count.py."
            ),
        }
    )


def _shape_fields(reader: ConfigReader) -> dict[str, Any]:
    hidden, layers, heads = reader.required("hidden"), reader.required("layers"), reader.required("heads")
    vocab = reader.required("vocab")
    kv_heads = reader.field("kv_heads")
    if kv_heads is None and reader.value("multi_query_attention"):
        kv_heads = reader.integer("multi_query_group_num")  # ChatGLM / GLM-4 grouped queries
    if kv_heads is None:
        kv_heads = 1 if reader.value("multi_query") else heads  # GPT-BigCode flags MQA with a boolean
    latent = reader.integer("kv_lora_rank")
    # MLA keeps its per-head width in qk_nope_head_dim (transformers sets head_dim to the RoPE part).
    head_dim = (reader.integer("qk_nope_head_dim", "v_head_dim") if latent else None) or reader.field("head_dim")
    head_dim = head_dim or max(1, hidden // heads)
    ffn = reader.integer("moe_intermediate_size") if _expert_count(reader) else None
    ffn = ffn or reader.field("ffn")
    if ffn is None:
        if reader.model_type in ("gpt_bigcode", "gpt2") or "n_inner" in reader.fields:
            ffn = 4 * hidden  # GPT-2 convention: n_inner null means 4 × n_embd
        else:
            reader.required("ffn")
    elif reader.model_type == "qwen":
        ffn //= 2  # Qwen 1.x stores twice the per-matrix width (w1/w2 each use half)
    tied = reader.value("tie_word_embeddings")
    return {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "ffn": ffn,
        "vocab": vocab,
        "tied_embeddings": bool(tied) if tied is not None else reader.model_type in TIED_BY_DEFAULT,
        "gated_mlp": reader.model_type not in UNGATED_TYPES,
        "kv_lora_rank": latent,
        "qk_rope_dim": reader.integer("qk_rope_head_dim") if latent else None,
        "q_lora_rank": reader.integer("q_lora_rank") if latent else None,
        "max_context": reader.field("context") or DEFAULT_CONTEXT,
    }


def _expert_count(reader: ConfigReader) -> int | None:
    experts = reader.field("experts")
    return experts if experts and experts > 1 else None


def _moe_fields(reader: ConfigReader, shape: dict[str, Any]) -> dict[str, Any]:
    experts = _expert_count(reader)
    if not experts:
        return {}
    active = reader.integer("num_experts_per_tok", "moe_top_k", "top_k") or 1
    shared = reader.integer("n_shared_experts") or 0
    shared_width = reader.integer("shared_expert_intermediate_size")
    if shared_width and not shared:
        shared = max(1, round(shared_width / shape["ffn"]))  # Qwen-MoE: one wide shared expert
    dense_layers = min(reader.integer("first_k_dense_replace") or 0, shape["layers"])
    dense_ffn = reader.integer("intermediate_size") if dense_layers else None
    return {
        "moe_experts": experts,
        "moe_active": min(active, experts),
        "moe_shared_experts": shared,
        "dense_layers": dense_layers or None,
        "dense_ffn": dense_ffn if dense_ffn != shape["ffn"] else None,
    }


def _window_fields(reader: ConfigReader, shape: dict[str, Any]) -> dict[str, Any]:
    window = reader.integer("sliding_window")
    layers = shape["layers"]
    if window is None or reader.value("use_sliding_window") is False or window >= shape["max_context"]:
        return {}
    layer_types = reader.value("layer_types")
    if isinstance(layer_types, list) and layer_types:
        full = sum(1 for kind in layer_types if kind == "full_attention")
    elif reader.model_type == "gemma2":
        full = layers // 2  # local and global layers alternate
    elif reader.model_type.startswith("gemma3"):
        full = layers // (reader.integer("sliding_window_pattern") or 6)
    elif reader.model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        full = min(reader.integer("max_window_layers") or 0, layers)
    else:
        full = 0  # Mistral-style: every layer uses the window
    return {"sliding_window": window, "full_attention_layers": full}


def _attention_kind(fields: dict[str, Any]) -> str:
    if fields.get("kv_lora_rank") and fields.get("qk_rope_dim"):
        return "mla"
    if fields["kv_heads"] == 1:
        return "mqa"
    return "mha" if fields["kv_heads"] >= fields["heads"] else "gqa"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "model"
