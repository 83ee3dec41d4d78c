"""Latency a user waits for before the first readable token, and a described latency complaint about serving.

Two causes a hardware checklist never finds lead these answers, each computed from the throughput estimate:
* a reasoning model (catalog field ``reasoning``) writes its hidden thinking first, so the first visible token
  waits for the thinking tokens at the streaming speed (tools/serving/latency.first_visible_token);
* a tail under load is prompts queueing for prefill (an M/M/c queue on the prefill time, tools/serving/latency.prefill_queue):
  the rate where the p99 passes its budget and the rate where the queue grows without bound.
Wording lives in the package text.yaml (section latency).
"""

from __future__ import annotations

from advisor.markdown import number
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.models import Reasoning
from knowledge.serving import load_serving_data
from knowledge.traffic import traffic_data
from tools.serving.latency import PrefillQueue, VisibleToken, first_visible_token, prefill_queue

WORDING = Wording("serving", "latency")


def say(key: str, **values: object) -> Text:
    return WORDING.text(key, **values)


def reasoning_of(turn: Turn, model_id: str) -> Reasoning | None:
    """The catalog's reasoning entry for the model as the user named it (an R1 distill thinks, its base model does not)."""
    spec = turn.catalog.find_model(model_id)
    if spec is None:
        return None
    return spec.reasoning_as_named(turn.slots.frame.surface("model") or spec.name)


def visible_token_lines(turn: Turn, reasoning: Reasoning, r: dict) -> list[str]:
    """The first readable token = TTFT + thinking ÷ streaming speed: the lead, the assumption behind the length, the checks."""
    found = first_visible_token(VisibleToken(ttft_ms=r["ttft_ms"], thinking_tokens=reasoning.thinking_tokens,
                                             tokens_per_s_per_user_streaming=r["tokens_per_s_per_user_streaming"]))  # fmt: skip
    model = named_model(turn, reasoning, r)
    lead = say("visible_lead", model=model, visible=number(found.first_visible_s, 1), ttft=number(r["ttft_ms"]),
               thinking=f"{reasoning.thinking_tokens:,}", speed=number(r["tokens_per_s_per_user_streaming"]), thinking_s=number(found.thinking_s, 1))  # fmt: skip
    turn.assumptions.append(turn.text(say("thinking_assumed" if reasoning.assumed else "thinking_measured", thinking=f"{reasoning.thinking_tokens:,}",
                                          per_thousand=number(found.per_thousand_s, 1), source=reasoning.source)))  # fmt: skip
    r.setdefault("lines", []).extend(line.model_dump() for line in found.lines)
    return [turn.text(lead), turn.text(say(f"visible_checks.{reasoning.switch}", model=model, source=reasoning.switch_source))]


def named_model(turn: Turn, reasoning: Reasoning, r: dict) -> Text:
    """The model as the user named it when it is a reasoning variant of a catalog row ("DeepSeek-R1-Distill-Qwen-32B"),
    else the catalog's name."""
    label = Text(**r["model_label"])
    surface = turn.slots.frame.surface("model")
    if not reasoning.variants or not surface:
        return label
    return Text(en=f"{surface} ({label.en})", zh=f"{surface}（{label.zh}）")


def setup_words(r: dict) -> Text:
    """"4× H100 SXM", with the copies said when the cards run more than one."""
    return say("setup" if r["replicas"] > 1 else "setup_one", count=r["num_gpus"], gpu=r["gpu"], replicas=r["replicas"])


def p99_budget_ms(args: dict) -> tuple[float, bool]:
    """The user's first-token target, else the interactive chat budget of knowledge/traffic.yaml (said as an assumption)."""
    if args.get("target_ttft_ms"):
        return float(args["target_ttft_ms"]), False
    return float(traffic_data()["chat_ttft_p99"]["value_ms"]), True


def queue_lines(turn: Turn, args: dict, r: dict) -> list[str]:
    """Prompts queueing for prefill: the rate where the p99 TTFT passes its budget, where the queue runs away, the
    p99 at a stated rate; then the levers in the order an engineer pulls them."""
    budget, assumed = p99_budget_ms(args)
    prefill_s = r["prompt_tokens"] / r["prefill_tokens_per_s"]
    rate = turn.slots.request_rate.per_second if turn.slots.request_rate else None
    queue = prefill_queue(PrefillQueue(prefill_s=prefill_s, replicas=r["replicas"], ttft_ms=r["ttft_ms"], p99_budget_ms=budget, requests_per_s=rate))
    r.setdefault("lines", []).extend(line.model_dump() for line in queue.lines)
    if assumed:
        data = traffic_data()["chat_ttft_p99"]
        turn.assumptions.append(turn.text(say("budget_assumed", budget=number(budget), source=f"{data['source']['title']}, {data['source']['url']}")))
    turn.assumptions.append(turn.text(say("queue_model")))
    figures = {"setup": setup_words(r), "ttft": number(r["ttft_ms"]),
               "prompt": f"{r['prompt_tokens']:,}", "prefill": number(prefill_s * 1e3), "builds": number(queue.builds_requests_per_s, 2),
               "saturation": number(queue.saturation_requests_per_s, 2), "budget": number(budget)}  # fmt: skip
    parts = [turn.text(say("queue_lead" if queue.builds_requests_per_s > 0 else "queue_lead_idle_misses", **figures))]
    if rate is not None:
        key = "queue_at_rate" if queue.p99_ttft_ms is not None else "queue_at_rate_saturated"
        parts.append(turn.text(say(key, rate=number(rate, 2), rho=number((queue.utilisation or 0) * 100), p99=number(queue.p99_ttft_ms or 0))))
    parts.append(turn.text(say("queue_levers", engine=r["engine"])))
    return parts


def split_queue(turn: Turn, one: dict, split: dict | None, args: dict) -> list[str]:
    """ "TP across all the cards, or replicas?": the same cards as one copy and as two copies of half the TP, each with the
    rate where its p99 TTFT passes the budget (more copies prefill in parallel; one wide copy prefills each prompt faster)."""
    budget, _ = p99_budget_ms(args)
    rows = []
    for r in filter(None, [one, split]):
        queue = prefill_queue(PrefillQueue(prefill_s=r["prompt_tokens"] / r["prefill_tokens_per_s"], replicas=r["replicas"], ttft_ms=r["ttft_ms"],
                                           p99_budget_ms=budget))  # fmt: skip
        rows.append((r, queue))
    best = max(rows, key=lambda row: row[1].builds_requests_per_s)
    listed = [say("split_option", setup=setup_words(r), tp=r["tp"], ttft=number(r["ttft_ms"]),
                  per_user=number(r["tokens_per_s_per_user_streaming"]), builds=number(q.builds_requests_per_s, 2),
                  saturation=number(q.saturation_requests_per_s, 2)) for r, q in rows]  # fmt: skip
    joined = Text(en="; ".join(t.en for t in listed), zh="；".join(t.zh for t in listed))
    lead = say("split_lead", tp=best[0]["tp"], copies=say("copies", replicas=best[0]["replicas"]) if best[0]["replicas"] > 1 else say("one_copy"), budget=number(budget), options=joined)
    moe = bool(turn.catalog.find_model(one["model_id"]) and turn.catalog.find_model(one["model_id"]).moe_experts)
    return [turn.text(lead), turn.text(say("expert_parallel_moe" if moe else "expert_parallel_dense", model=Text(**one["model_label"])))]


def shared_prefix(turn: Turn, args: dict) -> None:
    """A long prompt part shared by the requests (system prompt, RAG template, chat history) on an engine that caches
    prefixes by default: it is prefilled once, so each request's prefill counts only its new tokens (the smaller of two
    prompt lengths stated, the shared part the larger). Said as an assumption with the way to turn it off."""
    if turn.ask.shared_prefix is not True:
        return
    engine = load_serving_data().engine(args.get("engine") or "vllm")
    if not engine.prefix_cache_default:
        return
    lengths = sorted({int(value) for value in turn.slots.frame.all("prompt_tokens")})
    counted = NO_TEXT
    if len(lengths) >= 2:
        args["prompt_tokens"] = lengths[0]
        turn.slots.mark("prompt_tokens")
        counted = say("prefix_counted", shared=f"{lengths[-1]:,}", new=f"{lengths[0]:,}")
    else:
        counted = say("prefix_not_split")
    turn.assumptions.append(turn.text(say("prefix_cache", engine=engine.name, counted=counted, source=engine.prefix_cache_source)))


NO_TEXT = Text(en="", zh="")
