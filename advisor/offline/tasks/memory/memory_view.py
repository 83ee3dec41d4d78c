"""What a memory estimate shows beside its verdict: the itemised table, what fine-tuning would take when
serving was assumed, and the user's own rule of thumb worked out next to the estimate."""

from __future__ import annotations

from functools import lru_cache

from advisor.offline.wording import Wording
from advisor.markdown import number, table
from advisor.offline.turn import Turn
from knowledge.bilingual import Text
from knowledge.catalog import DATA_DIR, read_yaml

WORDING = Wording("memory", "memory_view")

LEADS_FILE = DATA_DIR / "answer_leads.yaml"


def breakdown(turn: Turn, estimate: dict) -> str:
    rows = [[turn.text(i["label"]), number(i["value"], 2), f"`{turn.formula(i)}`"] for i in estimate["items"] if abs(i["value"]) >= 0.005]
    count = estimate.get("num_gpus") or 1  # the title carries the layout the figures are for, as the lead does
    key = "memory_no_gpu_gb" if not estimate.get("gpu") else "memory_per_gpu_gb" if count > 1 else "memory_one_gpu_gb"
    title = WORDING.say(turn, f"memory_view_phrases.breakdown.{key}", count=count, gpu=estimate["gpu"])
    return f"**{title}**\n\n" + table([WORDING.say(turn, "memory_view_phrases.breakdown.part"), "GB", WORDING.say(turn, "memory_view_phrases.breakdown.formula")], rows)


OOM_PARTS_NAMED = 2  # the two largest parts explain an out-of-memory; a third is detail for the table


def oom_causes(turn: Turn, estimate: dict) -> list[str]:
    """An out-of-memory report with its setup stated: the largest parts of the peak by name and size, then the
    change that removes the largest (the estimator's main lever); the routes that fit follow in the answer."""
    items = sorted((i for i in estimate["items"] if i["value"] > 0), key=lambda i: i["value"], reverse=True)[:OOM_PARTS_NAMED]
    if not items:
        return []
    named = WORDING.say(turn, "oom.joiner").join(WORDING.say(turn, "oom.part", part=turn.text(i["label"]), gb=number(i["value"])) for i in items)
    lines = [WORDING.say(turn, "oom.largest", parts=named, total=number(estimate["total_per_gpu_gb"]))]
    if estimate.get("main_lever"):
        lines.append("💡 " + turn.text(estimate["main_lever"]))
    return lines


def other_tasks(turn: Turn, model: str) -> str:
    """Serving was assumed: show what fine-tuning the same model would take, so the user can re-ask."""
    lines = []
    for method, label in (("qlora", "QLoRA"), ("lora", "LoRA"), ("full", WORDING.say(turn, "memory_view_phrases.other_tasks.full_fine_tune"))):
        outcome = turn.call("estimate_memory", {"model": model, "mode": "training", "method": method})
        if outcome.ok:
            lines.append(f"{label} ≈ {number(outcome.result['total_per_gpu_gb'])} GB")
    lead = WORDING.say(turn, "memory_view_phrases.other_tasks.if_you_also_want_to")
    return lead + ", ".join(lines) if lines else ""


def rule_of_thumb(turn: Turn, estimate: dict | None) -> list[str]:
    """The user quoted a rule ("4 GB per 1B parameters", "16 bytes a parameter"): put its figure next to the itemised one."""
    if not turn.slots.quotes_rule_of_thumb or not estimate:
        return []
    needed, multiple = estimate["total_all_gpus_gb"], turn.slots.claimed_weights_multiple
    weights = sum(item["value"] for item in estimate["items"] if item["key"] == "weights") * (estimate["total_all_gpus_gb"] / estimate["total_per_gpu_gb"])
    if multiple is not None and weights:  # "1.2x the weights": the rule scales the weights, whatever their precision
        ruled = weights * multiple
        worked = WORDING.say(turn, "memory_view_phrases.rule_of_thumb.gb_of_weights", weights=number(weights), multiple=number(multiple))
    else:
        per_parameter = turn.slots.claimed_bytes_per_parameter or 4
        ruled = estimate["params_b"] * per_parameter
        worked = WORDING.say(turn, "memory_view_phrases.rule_of_thumb.params_times_bytes", params_b=number(estimate['params_b']), per_parameter=number(per_parameter))
    off = number(abs(ruled / needed - 1) * 100)
    share = WORDING.say(turn, "lines.under" if ruled < needed else "lines.over", off=off)
    lines = [WORDING.say(turn, "memory_view_phrases.rule_of_thumb.the_rule_you_quote_gives", worked=worked, ruled=number(ruled), needed=number(needed), share=share)]
    default_rule = multiple is None and turn.slots.claimed_bytes_per_parameter in (None, 4)
    return lines + [f"ℹ️ {turn.text(n)}" for n in estimate.get("notes", []) if "4 GB" in n["en"] and default_rule][:1]


@lru_cache(maxsize=1)
def _leads() -> dict[str, Text]:
    raw = read_yaml(LEADS_FILE)
    return {key: Text.model_validate(value) for key, value in raw.items()}


def asks_about_kv_cache(turn: Turn) -> bool:
    """The question names the KV cache in either language (the glossary's phrases, not a pattern of our own)."""
    return turn.ask.names_kv_cache


def kv_cache_lead(turn: Turn, estimate: dict, sequences: int, context: int, precision: str) -> str | None:
    """A KV-cache question is answered by the KV cache first, not by a per-GPU total that adds weights and the
    prefill temporaries no serving engine keeps; on several GPUs, the whole cache first and each GPU's share beside it."""
    kv = next((i["value"] for i in estimate["items"] if i.get("key") == "kv_cache"), None)
    if kv is None:
        return None
    shards = estimate.get("tp", 1) * estimate.get("pp", 1)  # the items are per GPU; the cache is split with the model
    if shards > 1:
        return turn.text(_leads()["kv_cache_split"]).format(kv=number(kv * shards, 2), per_gpu=number(kv, 2), gpus=shards, sequences=sequences,
                                                             context=f"{context:,}", precision=precision)
    return turn.text(_leads()["kv_cache"]).format(kv=number(kv, 2), sequences=sequences, context=f"{context:,}", precision=precision)
