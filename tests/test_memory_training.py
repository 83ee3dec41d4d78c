"""Training components: Korthikanti activations, recompute, TP/SP/PP, LoRA sizes, MoE, offload."""

import pytest

from knowledge.catalog import Catalog, load_catalog
from knowledge.models import ModelSpec
from tools.memory.activations import training_layer
from tools.memory.estimator import MemoryRequest, estimate_memory
from tools.memory.shapes import lora_params, lora_targets

shipped = load_catalog()
# GPT-3 175B as in Brown et al. 2020 Table 2.1 and Korthikanti et al. 2022 Table 3: MHA, GeLU MLP of 4h.
GPT3 = ModelSpec(
    id="gpt-3-175b", name="GPT-3 175B", family="gpt", params_b=174.6, layers=96, hidden=12288, heads=96, kv_heads=96,
    head_dim=128, ffn=49152, vocab=51200, attention="mha", gated_mlp=False, max_context=2048, source="arXiv:2005.14165",
)  # fmt: skip
catalog = Catalog(shipped.gpus, [*shipped.models, GPT3])
S, B = 2048, 1
SBH = S * B * GPT3.hidden


def lines(**settings) -> dict[str, float]:
    return {i.key: i.value * 1e9 for i in estimate_memory(MemoryRequest(mode="training", **settings), catalog).items}


def test_korthikanti_per_layer_without_parallelism():
    layer = training_layer(GPT3, flash_attention=False, dropout=True)
    a, h = GPT3.heads, GPT3.hidden
    assert layer.per_layer(S * B, S, tp=1, sequence_parallel=False) == pytest.approx(SBH * (34 + 5 * a * S / h))
    flash = training_layer(GPT3, flash_attention=True, dropout=True)
    assert flash.per_layer(S * B, S, 1, False) == pytest.approx(SBH * 34)  # FlashAttention drops 5as/h


@pytest.mark.parametrize("t", [2, 4, 8])
def test_korthikanti_tensor_and_sequence_parallel_forms(t):
    layer = training_layer(GPT3, flash_attention=False, dropout=True)
    a, h = GPT3.heads, GPT3.hidden
    assert layer.per_layer(S * B, S, t, False) == pytest.approx(SBH * (10 + 24 / t + 5 * a * S / (h * t)))
    assert layer.per_layer(S * B, S, t, True) == pytest.approx(SBH / t * (34 + 5 * a * S / h))
    assert S * B * layer.per_token(t, False) == pytest.approx(SBH * (10 + 24 / t))  # selective recompute


def test_gated_mlp_generalisation_saves_four_ffn_wide_tensors():
    llama = shipped.model("llama-3.1-8b")
    mha_llama = llama.model_copy(update={"kv_heads": llama.heads})
    layer = training_layer(mha_llama, flash_attention=True, dropout=True, compiled=True)
    # 10 replicated + 8 attention + 8·ffn/h: Megatron's sbh(18 + 4·ffn/h) with the gate and product also kept.
    assert layer.coefficient(llama.hidden) == pytest.approx(18 + 8 * llama.ffn / llama.hidden)
    eager = training_layer(mha_llama, flash_attention=True, dropout=True)
    assert eager.coefficient(llama.hidden) == pytest.approx(layer.coefficient(llama.hidden) + 8)  # fp32 RMSNorm inputs


def test_recompute_modes():
    common = dict(model="gpt-3-175b", batch=B, context=S, flash_attention=False, tp=8, pp=12, num_gpus=96)
    layers_per_stage = GPT3.layers / 12
    full = lines(recompute="full", **common)
    assert full["activations"] == pytest.approx(2 * SBH * layers_per_stage * 12)  # 2sbh per layer, pp micro-batches
    selective = lines(recompute="selective", **common)["activations"]
    none = lines(recompute="none", **common)["activations"]
    assert full["activations"] < selective < none
    assert selective == pytest.approx(SBH * (8 + 24 / 8) * layers_per_stage * 12)  # no dropout masks by default


def test_first_pipeline_stage_holds_pp_micro_batches():
    one = lines(model="llama-3.1-70b", recompute="none", zero_stage=1, num_gpus=8)["activations"]
    staged = lines(model="llama-3.1-70b", recompute="none", pp=4, zero_stage=1, num_gpus=8)["activations"]
    assert staged == pytest.approx(one)  # L/p layers × p micro-batches in flight = L layers' worth


def test_lora_parameters_match_peft_counts():
    llama2 = shipped.model("llama-2-7b")
    assert lora_params(llama2, 8, lora_targets(["q_proj", "v_proj"])) == 4_194_304  # PEFT's printed figure
    llama3 = shipped.model("llama-3-8b")
    assert lora_params(llama3, 16, lora_targets(["all"])) == 41_943_040
    mixtral = shipped.model("mixtral-8x7b")
    attn, mlp = (lora_params(mixtral, 8, lora_targets([t])) for t in ("attention", "mlp"))
    assert mlp == 8 * 8 * (3 * (4096 + 14336)) * 32  # every expert adapted


def test_qlora_stores_the_base_in_nf4_and_trains_adapters_only():
    lora = lines(model="llama-3.1-8b", method="lora")
    qlora = lines(model="llama-3.1-8b", method="qlora")
    assert qlora["weights"] < lora["weights"] / 2.5  # 4.13-bit linear layers, 16-bit embeddings and head
    assert qlora["optimizer_states"] == lora["optimizer_states"] < 1e9


def test_freeze_trains_only_the_last_layers():
    full = lines(model="llama-3.1-8b", recompute="none")
    frozen = lines(model="llama-3.1-8b", method="freeze", trainable_layers=2, recompute="none")
    assert frozen["optimizer_states"] == pytest.approx(full["optimizer_states"] * 2 / 32, rel=0.15)
    assert frozen["activations"] == pytest.approx(full["activations"] * 2 / 32)


def test_moe_keeps_all_experts_but_activates_top_k():
    mixtral = shipped.model("mixtral-8x7b")
    top1 = mixtral.model_copy(update={"id": "mixtral-top1", "name": "Mixtral top-1", "aliases": [], "moe_active": 1})
    moe_catalog = Catalog(shipped.gpus, [mixtral, top1])

    def moe_lines(model):
        result = estimate_memory(MemoryRequest(model=model, mode="training", recompute="none", zero_stage=3, num_gpus=8), moe_catalog)
        return {i.key: i.value for i in result.items}

    top2, top1_lines = moe_lines("mixtral-8x7b"), moe_lines("mixtral-top1")
    assert top2["weights"] == top1_lines["weights"] == pytest.approx(mixtral.params_b * 2 / 8, rel=1e-6)
    # one more expert per token: its four ffn-wide intermediates (2 B each) and a routed copy of the token (2h)
    expert_tokens = 4096 * (8 * mixtral.ffn + 2 * mixtral.hidden) * mixtral.layers / 1e9
    assert top2["activations"] - top1_lines["activations"] == pytest.approx(expert_tokens, rel=1e-3)


def test_cpu_offload_moves_states_off_the_gpu():
    settings = dict(model="llama-3.1-70b", zero_stage=3, num_gpus=8)
    on_gpu = lines(**settings)
    offloaded = lines(offload="optimizer", **settings)
    assert offloaded["optimizer_states"] == 0 < on_gpu["optimizer_states"]
    everything = estimate_memory(MemoryRequest(mode="training", offload="optimizer_and_params", **settings), catalog)
    assert any("host RAM" in a.en for a in everything.assumptions)
    assert next(i for i in everything.items if i.key == "weights").value == 0


def test_peak_takes_the_larger_of_activations_and_gradients():
    once = lines(model="llama-3.1-8b", recompute="none", context=8192)
    assert once["peak_overlap"] < 0  # gradients and saved activations never peak together
    accumulating = lines(model="llama-3.1-8b", recompute="none", context=8192, grad_accumulation=4)
    assert "peak_overlap" not in accumulating  # accumulated gradients are alive during the next forward
    assert sum(accumulating.values()) > sum(once.values())


def test_fused_optimizer_step_and_chunked_loss_lower_the_peak():
    base = lines(model="llama-3.2-3b", context=4096, batch=2)
    fused = lines(model="llama-3.2-3b", context=4096, batch=2, optimizer_in_backward=True)
    assert fused["gradients"] < base["gradients"] / 5
    chunked = lines(model="llama-3.2-3b", context=4096, batch=2, chunked_loss=True)
    assert chunked["logits"] < base["logits"] / 5
