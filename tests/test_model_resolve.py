"""Resolving names, sizes and config.json into ModelSpecs, and counting parameters from shapes."""

import json

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tools.models.param_count import count_params
from tools.models.resolve import resolve_model

catalog = load_catalog()

# Field values as published in each model's config.json on Hugging Face (trimmed to the
# fields that matter; unrelated keys such as rope settings are left out).
LLAMA_31_8B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 131072, "tie_word_embeddings": False,
}  # fmt: skip
QWEN25_7B = {
    "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
    "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 131072,
    "sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 28, "tie_word_embeddings": False,
}  # fmt: skip
MIXTRAL_8X7B = {
    "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2,
    "vocab_size": 32000, "max_position_embeddings": 32768, "sliding_window": None, "tie_word_embeddings": False,
}  # fmt: skip
DEEPSEEK_V3 = {
    "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
    "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "n_routed_experts": 256,
    "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3, "kv_lora_rank": 512,
    "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "vocab_size": 129280, "max_position_embeddings": 163840, "tie_word_embeddings": False,
}  # fmt: skip
GEMMA3_27B = {  # multimodal wrapper: the language model lives in text_config, vocab_size left to the class
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "text_config": {
        "model_type": "gemma3_text", "hidden_size": 5376, "intermediate_size": 21504, "num_hidden_layers": 62,
        "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128, "sliding_window": 1024,
    },
    "vision_config": {"hidden_size": 1152, "model_type": "siglip_vision_model"},
}  # fmt: skip
CHATGLM3_6B = {
    "model_type": "chatglm", "hidden_size": 4096, "ffn_hidden_size": 13696, "num_layers": 28,
    "num_attention_heads": 32, "kv_channels": 128, "multi_query_attention": True, "multi_query_group_num": 2,
    "padded_vocab_size": 65024, "seq_length": 8192, "tie_word_embeddings": False,
}  # fmt: skip
OCTOCODER = {
    "model_type": "gpt_bigcode", "n_embd": 6144, "n_layer": 40, "n_head": 48, "n_inner": 24576,
    "multi_query": True, "vocab_size": 49152, "n_positions": 8192,
}  # fmt: skip
QWEN_7B_V1 = {
    "model_type": "qwen", "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
    "num_attention_heads": 32, "kv_channels": 128, "vocab_size": 151936, "seq_length": 8192,
    "max_position_embeddings": 32768,
}  # fmt: skip
QWEN15_MOE_A27B = {
    "model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632, "moe_intermediate_size": 1408,
    "shared_expert_intermediate_size": 5632, "num_experts": 60, "num_experts_per_tok": 4,
    "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936,
    "max_position_embeddings": 8192, "use_sliding_window": False, "tie_word_embeddings": False,
}  # fmt: skip
MISTRAL_7B_V01 = {
    "model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768,
    "sliding_window": 4096, "tie_word_embeddings": False,
}  # fmt: skip


@pytest.mark.parametrize("model", catalog.models, ids=lambda m: m.id)
def test_catalog_shapes_reproduce_published_parameter_counts(model):
    counted = count_params(model)
    assert counted.total / 1e9 == pytest.approx(model.params_b, rel=0.03)
    if model.active_params_b:
        assert counted.active / 1e9 == pytest.approx(model.active_params_b, rel=0.03)
    else:
        assert counted.active == counted.total


@pytest.mark.parametrize(
    ("config", "expected_total", "catalog_id"),
    [
        (LLAMA_31_8B, 8.03e9, "llama-3.1-8b"),
        (QWEN25_7B, 7.62e9, "qwen2.5-7b"),
        (MIXTRAL_8X7B, 46.7e9, "mixtral-8x7b"),
        (DEEPSEEK_V3, 671e9, "deepseek-v3"),
        (GEMMA3_27B, 27.0e9, "gemma-3-27b"),  # text model only; the catalog row adds the vision tower
        (CHATGLM3_6B, 6.24e9, "chatglm3-6b"),
        (OCTOCODER, 15.5e9, "octocoder"),
        (QWEN_7B_V1, 7.72e9, "qwen-7b"),
        (MISTRAL_7B_V01, 7.24e9, "mistral-7b"),
    ],
)
def test_configs_parse_to_the_catalog_architecture(config, expected_total, catalog_id):
    spec = resolve_model(config, catalog)
    assert spec.params_b * 1e9 == pytest.approx(expected_total, rel=0.02)
    row = catalog.model(catalog_id)
    for field in ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "attention", "gated_mlp",
                  "tied_embeddings", "sliding_window", "full_attention_layers", "kv_lora_rank", "qk_rope_dim",
                  "moe_experts", "moe_active", "moe_shared_experts", "dense_layers", "dense_ffn"):  # fmt: skip
        assert getattr(spec, field) == getattr(row, field), field
    assert spec.id.startswith("custom-") and "config.json" in spec.source


def test_moe_config_reports_active_parameters():
    v3 = resolve_model(DEEPSEEK_V3, catalog)
    assert v3.active_params_b == pytest.approx(37, rel=0.03)
    qwen_moe = resolve_model(QWEN15_MOE_A27B, catalog)  # one wide shared expert = 4 expert widths
    assert qwen_moe.moe_shared_experts == 4
    assert qwen_moe.params_b == pytest.approx(14.3, rel=0.02)
    assert qwen_moe.active_params_b == pytest.approx(2.7, rel=0.03)
    assert resolve_model(LLAMA_31_8B, catalog).active_params_b is None


def test_pasted_json_text_matches_the_dict():
    pasted = "\n  " + json.dumps(MIXTRAL_8X7B, indent=2)
    assert resolve_model(pasted, catalog) == resolve_model(MIXTRAL_8X7B, catalog)


def test_qwen2_window_is_ignored_when_disabled_and_used_when_enabled():
    assert resolve_model(QWEN25_7B, catalog).sliding_window is None
    enabled = {**QWEN25_7B, "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 20}
    spec = resolve_model(enabled, catalog)
    assert (spec.sliding_window, spec.full_attention_layers) == (4096, 20)


def test_mla_config_with_transformers_head_dim_keeps_the_nope_width():
    # transformers' DeepseekV3Config.to_dict() adds head_dim = qk_rope_head_dim (64)
    spec = resolve_model({**DEEPSEEK_V3, "head_dim": 64}, catalog)
    assert spec.head_dim == 128 and spec.attention == "mla"


@pytest.mark.parametrize("text", ["Llama3 8B", "满血版R1", "Qwen2.5-72B-Instruct", "mixtral 8x7b"])
def test_catalog_names_win(text):
    assert resolve_model(text, catalog) is catalog.model(text)


def test_model_spec_passes_through():
    row = catalog.model("qwen3-8b")
    assert resolve_model(row, catalog) is row


@pytest.mark.parametrize(
    ("text", "size_b"),
    [("0.5B", 0.5), ("7B", 7), ("70亿", 7), ("七十亿参数", 7), ("13B", 13), ("70B", 70), ("405B", 405), ("1.5T", 1500)],
)
def test_bare_sizes_give_an_approximate_generic_decoder(text, size_b):
    spec = resolve_model(text, catalog)
    assert spec.params_b == pytest.approx(size_b)
    assert spec.id == f"generic-{size_b:g}b"
    assert "Approximate" in spec.source and spec.family == "generic"
    assert count_params(spec).total / 1e9 == pytest.approx(size_b, rel=0.03)
    assert spec.hidden == spec.heads * spec.head_dim and spec.heads % spec.kv_heads == 0


def test_generic_shapes_grow_with_size_and_match_their_llama_anchors():
    sizes = ["1B", "3B", "8B", "30B", "70B", "200B", "405B", "1T"]
    specs = [resolve_model(s, catalog) for s in sizes]
    assert [s.hidden for s in specs] == sorted(s.hidden for s in specs)
    assert [s.layers for s in specs] == sorted(s.layers for s in specs)
    llama_8b, generic_8b = catalog.model("llama-3.1-8b"), specs[2]
    assert (generic_8b.hidden, generic_8b.layers, generic_8b.ffn) == (llama_8b.hidden, llama_8b.layers, llama_8b.ffn)
    llama_405b, generic_405b = catalog.model("llama-3.1-405b"), specs[6]
    assert (generic_405b.hidden, generic_405b.layers) == (llama_405b.hidden, llama_405b.layers)


def expect_error(ref, code):
    with pytest.raises(AdvisorError) as caught:
        resolve_model(ref, catalog)
    error = caught.value
    assert error.code == code
    assert error.en and error.zh and error.en != error.zh
    return error


@pytest.mark.parametrize("text", ['{"hidden_size": 4096,', "{not json}", "[1, 2]"])
def test_malformed_config_text(text):
    expect_error(text, "invalid_model_config")


def test_json_syntax_errors_say_where():
    error = expect_error('{\n "hidden_size": 4096\n "num_hidden_layers": 32}', "invalid_model_config")
    assert "line 3" in error.en and "第 3 行" in error.zh


@pytest.mark.parametrize(
    "config",
    [
        {k: v for k, v in LLAMA_31_8B.items() if k != "num_hidden_layers"},
        {k: v for k, v in LLAMA_31_8B.items() if k != "vocab_size"},
        {k: v for k, v in LLAMA_31_8B.items() if k != "intermediate_size"},
        {**LLAMA_31_8B, "hidden_size": -4096},
        {**LLAMA_31_8B, "num_attention_heads": 0},
        {**LLAMA_31_8B, "hidden_size": "4096"},
        {**LLAMA_31_8B, "num_hidden_layers": 32.5},
        {**LLAMA_31_8B, "num_key_value_heads": True},
        {**LLAMA_31_8B, "hidden_size": 10**7, "intermediate_size": 10**8},  # ~1e17 parameters
        {},
    ],
)
def test_bad_configs_are_rejected(config):
    expect_error(config, "invalid_model_config")


def test_missing_field_is_named():
    error = expect_error({k: v for k, v in LLAMA_31_8B.items() if k != "num_hidden_layers"}, "invalid_model_config")
    assert "num_hidden_layers" in error.en and "num_hidden_layers" in error.zh


@pytest.mark.parametrize(("text", "code"), [("-7B", "invalid_model_size"), ("0B", "invalid_model_size"),
                                            ("200T", "invalid_model_size"), ("7", "ambiguous_model_size")])  # fmt: skip
def test_impossible_sizes(text, code):
    error = expect_error(text, code)
    assert error.suggestions


@pytest.mark.parametrize("ref", ["", "   ", None, 7])
def test_missing_reference(ref):
    expect_error(ref, "missing_model")


def test_unknown_name_suggests_catalog_models():
    error = expect_error("Llama 5 900B", "unknown_model")
    assert error.suggestions and all(catalog.find_model(s) for s in error.suggestions)
    assert "Qwen2.5-72B" in expect_error("Qwen2.5 70B", "unknown_model").suggestions
