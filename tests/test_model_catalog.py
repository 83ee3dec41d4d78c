"""The shipped model catalog: the agreed ids, sound architecture data, and the names users type."""

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog, normalize_name

MODEL_IDS = (
    "llama-2-7b llama-2-13b llama-2-70b llama-3-8b llama-3-70b llama-3.1-8b llama-3.1-70b llama-3.1-405b "
    "llama-3.2-1b llama-3.2-3b llama-3.3-70b qwen-1.8b qwen-7b qwen-14b qwen-72b qwen2-7b qwen2-72b "
    "qwen2.5-0.5b qwen2.5-7b qwen2.5-14b qwen2.5-32b qwen2.5-72b qwen3-8b qwen3-32b qwen3-30b-a3b "
    "qwen3-235b-a22b deepseek-v2 deepseek-v3 deepseek-r1 mixtral-8x7b mixtral-8x22b mistral-7b gemma-2-9b "
    "gemma-2-27b gemma-3-27b glm-4-9b chatglm3-6b yi-34b baichuan2-13b hunyuan-large internlm2.5-7b phi-3-mini octocoder "
    "qwen3-14b phi-4 qwq-32b gemma-3-12b mistral-small-24b mistral-large-2 phi-3-medium codellama-34b yi-1.5-34b yi-1.5-9b "
    "gpt2 gpt2-medium gpt2-large gpt2-xl gpt-oss-120b gpt-oss-20b"
).split()

catalog = load_catalog()
MODELS = catalog.models


def test_catalog_holds_exactly_the_agreed_ids():
    assert sorted(m.id for m in MODELS) == sorted(MODEL_IDS)


def test_every_lookup_key_points_to_one_model():
    owner: dict[str, str] = {}
    for model in MODELS:
        for key in {normalize_name(k) for k in (model.id, model.name, *model.aliases)}:
            assert key, f"{model.id} has an empty alias"
            assert owner.setdefault(key, model.id) == model.id, f"'{key}' used by {owner[key]} and {model.id}"


@pytest.mark.parametrize(
    ("typed", "model_id"),
    [
        ("Llama3 8B", "llama-3-8b"),
        ("llama-3-8b-instruct", "llama-3-8b"),
        ("Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"),
        ("通义千问7B", "qwen-7b"),
        ("Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("qwen 3 8b", "qwen3-8b"),
        ("DeepSeek R1", "deepseek-r1"),
        ("满血版R1", "deepseek-r1"),
        ("DeepSeek-V3", "deepseek-v3"),
        ("Mixtral 8x7B", "mixtral-8x7b"),
        ("GLM4-9B", "glm-4-9b"),
        ("书生浦语2.5-7B", "internlm2.5-7b"),
        ("百川2-13B", "baichuan2-13b"),
        ("bigcode/octocoder", "octocoder"),
        ("ＬＬＡＭＡ３ ８Ｂ", "llama-3-8b"),
    ],
)
def test_typed_names_resolve(typed, model_id):
    assert catalog.model(typed).id == model_id


def test_unknown_model_names_get_close_suggestions_in_both_languages():
    with pytest.raises(AdvisorError) as caught:
        catalog.model("Qwen2.5 70B")
    assert caught.value.code == "unknown_model"
    assert "Qwen2.5-72B" in caught.value.suggestions
    assert caught.value.en and caught.value.zh


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_rows_are_internally_consistent(model):
    kind = "mqa" if model.kv_heads == 1 else "mha" if model.kv_heads == model.heads else "gqa"
    assert model.attention == kind or model.attention == "mla"
    assert model.heads % model.kv_heads == 0
    assert "huggingface.co/" in model.source and "config.json" in model.source
    if model.attention == "mla":
        assert model.kv_lora_rank and model.qk_rope_dim
    if model.moe_experts:
        assert model.moe_active and model.moe_active < model.moe_experts
        assert model.moe_shared_experts is not None
        assert model.active_params_b and model.active_params_b < model.params_b
    else:
        assert model.active_params_b is None and model.dense_layers is None
    if model.sliding_window:
        assert model.full_attention_layers is not None and model.full_attention_layers < model.layers


def test_architecture_features_are_recorded_where_they_matter():
    by_id = {m.id: m for m in MODELS}
    assert {m.id for m in MODELS if m.attention == "mla"} == {"deepseek-v2", "deepseek-v3", "deepseek-r1"}
    assert {m.id for m in MODELS if m.sliding_window} == {
        "mistral-7b", "gemma-2-9b", "gemma-2-27b", "gemma-3-27b", "gemma-3-12b", "gpt-oss-120b", "gpt-oss-20b"
    }  # fmt: skip
    assert by_id["gemma-3-27b"].full_attention_layers == 10 and by_id["gemma-2-9b"].full_attention_layers == 21
    assert {m.id for m in MODELS if m.moe_experts} == {
        "qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v2", "deepseek-v3", "deepseek-r1", "mixtral-8x7b", "mixtral-8x22b", "hunyuan-large",
        "gpt-oss-120b", "gpt-oss-20b",
    }  # fmt: skip
    assert by_id["octocoder"].attention == "mqa" and not by_id["octocoder"].gated_mlp
    assert by_id["deepseek-v3"].params_b == 671 and by_id["deepseek-v3"].active_params_b == 37


@pytest.mark.parametrize(
    ("family", "size", "model_id"),
    [("llama", 8, "llama-3.1-8b"), ("Llama", 70, "llama-3.3-70b"), ("qwen", 32, "qwen3-32b"), ("deepseek", 671, "deepseek-r1"), ("gemma", 27, "gemma-3-27b"), ("qwen", 14, "qwen3-14b"), ("qwen", 30, "qwen3-30b-a3b"), ("qwen", 3, None)],
)
def test_a_family_and_a_size_name_the_newest_model_of_that_size(family, size, model_id):
    found = catalog.newest_of_family(family, size)
    assert (found.id if found else None) == model_id  # "qwen 3b" is not the 3B-active MoE
    assert catalog.newest_of_family(family, 3000) is None and catalog.newest_of_family("nonesuch", size) is None
