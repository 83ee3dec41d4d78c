"""The dialogue task's sentences, from the package text.yaml (sections guard, parts, followup, new_subject): the replies
to messages not acted on (unreadable, off-topic, injection, a greeting), the opening line of a several-question answer,
the lead that says what a follow-up changed and how the headline figure moved, "why?" from the calculation re-run, the
thread's setup under a general answer, and the configuration a new subject is answered for. Every figure comes from a
tool result; no tool arguments are decided here (plan.py and the answer modules do)."""

from __future__ import annotations

from collections.abc import Callable

from advisor.contract import ToolCall
from advisor.labels import unit
from advisor.markdown import money, number
from advisor.nlu.slot_schema import slot_label
from advisor.offline.tasks.dialogue.plan import PROBLEM, RUNNING_COST, Change, changes, figure_tool, used_by_answer
from advisor.offline.tasks.memory import sensitivity
from advisor.offline.tasks.recommend.price_view import range_text
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import ConceptCard
from knowledge.sentences import first_sentence, sentences

GUARD = Wording("dialogue", "guard")
PARTS = Wording("dialogue", "parts")
FOLLOWUP = Wording("dialogue", "followup")
NEW_SUBJECT = Wording("dialogue", "new_subject")


# ---- messages not acted on (unreadable, off-topic, injection) and a greeting ----
def capabilities(turn: Turn) -> str:
    """What the advisor does, with an example question per kind, in the turn's language."""
    return GUARD.say(turn, "capabilities")


def unreadable(turn: Turn, kind: str) -> str:
    """The reply to a message plan.unreadable_kind found unreadable (empty, emoji only, nonsense, an unsupported language)."""
    if kind == "unsupported":
        lead = GUARD.entry("unsupported_language")["en"]  # said in both languages at once: the question's language is neither
    else:
        lead = GUARD.say(turn, kind)
    return f"{lead}\n\n{capabilities(turn)}"


def out_of_scope(turn: Turn) -> str:
    """What the advisor does, briefly, with three questions it answers, in the user's language."""
    lead = GUARD.say(turn, "out_of_scope")
    return f"{lead}\n\n{GUARD.say(turn, 'scope_examples')}"


def injection(turn: Turn) -> str:
    return f"{GUARD.say(turn, 'injection')} {GUARD.say(turn, 'scope')}"


def greeting(turn: Turn) -> str:
    lead = GUARD.say(turn, "greeting")
    return f"{lead}\n\n{capabilities(turn)}"


# ---- a message that asks several questions: the opening line and no answer twice ----
VERDICT_CHARS = 160  # one line of the opening per part; the part's own answer below has the rest
NOT_A_VERDICT = ("🧮", "📌", "|", "- ", "```")  # an offer, a noted value, a table, a list, a command: not the answer


def verdict_of(body: str) -> str:
    """The first sentence of an answer: past a bold title line, plain (no bold), cut to one line."""
    for paragraph in body.split("\n\n"):
        line = paragraph.strip().split("\n")[0].strip()
        if not line or line.startswith(NOT_A_VERDICT) or (line.startswith("**") and line.endswith("**") and line.count("**") == 2):
            continue
        sentence = first_sentence(line.replace("**", "").replace("__", ""))  # "i.e. the 910B" ends no sentence
        return sentence if len(sentence) <= VERDICT_CHARS else sentence[: VERDICT_CHARS - 1].rstrip() + "…"
    return ""


def combined(turn: Turn, bodies: list[str]) -> str:
    """The opening line: "In short: (1) … (2) …" from each part's first sentence."""
    verdicts = [PARTS.say(turn, "verdict", index=index, verdict=verdict)
                for index, body in enumerate(bodies, 1) if (verdict := verdict_of(body))]  # fmt: skip
    if len(verdicts) < 2:
        return ""
    return PARTS.say(turn, "combined", verdicts=PARTS.say(turn, "joiner").join(verdicts))


def without_repeats(turn: Turn, bodies: list[str], questions: list[str] = ()) -> list[str]:
    """A part whose answer opens with the same sentence as an earlier part's (the same card found twice) points back to
    that part instead of repeating it: one answer per question, no section twice. With the parts' ``questions`` the
    pointer names the question it has no answer of its own for, and says what can be worked out instead."""
    kept: list[str] = []
    for number, body in enumerate(bodies):
        verdict = verdict_of(body)
        earlier = next((index for index, shown in enumerate(kept, 1) if verdict and verdict_of(shown) == verdict), None)
        if earlier is None:
            kept.append(body)
        elif number < len(questions) and questions[number]:
            kept.append(PARTS.say(turn, "repeated_question", index=earlier, question=questions[number].strip().rstrip("?？!！。. ")))
        else:
            kept.append(PARTS.say(turn, "repeated", index=earlier))
    return kept


# ---- a follow-up: what it changed, how the figure moved, why, and the thread's setup beside a general answer ----
SIZED = "estimate_throughput"  # a count sized for a load tries one split after another before it settles
CURRENCIES = frozenset({"USD", "CNY"})  # line items whose unit is an amount of money
LOOKUPS = frozenset({"search_knowledge", "check_capability", "rental_prices"})  # look-ups beside an answer, not its calculation


def lead(turn: Turn, before: list[ToolCall] = ()) -> str:
    """"With GPU L40S instead of H100 (everything else as before): " or "" when the message changed nothing;
    with ``before`` (the tool calls behind the previous answer, as the history carries them) it goes on with how the
    headline figure moved: "≈ 1.3× the memory of before (164.5 → 217.3 GB per GPU)"."""
    held = FOLLOWUP.data["held_against"].get(turn.reading.task, [])  # compared in the answer's own first line, not re-run with
    found = [c for c in changes(turn) if not (c.slot in held and used_by_answer(turn, c))]
    if not found:
        return ""
    used = [c for c in found if used_by_answer(turn, c)]
    unused = [c for c in found if not used_by_answer(turn, c)]
    if not used:  # "we're in Singapore, budget $20k" after a memory answer: no input of that figure, said plainly
        return FOLLOWUP.say(turn, "not_used.lead", values=_changes(turn, unused)) + _delta(turn, before) + _affects(turn, unused)
    return FOLLOWUP.say(turn, "lead", changes=_changes(turn, used)) + _delta(turn, before) + _affects(turn, unused, also=True)


def with_lead(turn: Turn, lead: str, summary: str) -> str:
    """The answer with what the follow-up changed before it, or after its verdict paragraph when the answer's verdict
    leads (``turn.verdict_leads``: "and with 32 of them?" after rent-or-buy is answered for 32 first)."""
    if not lead or not turn.verdict_leads or "\n\n" not in summary:
        return lead + summary
    verdict, rest = summary.split("\n\n", 1)
    return f"{verdict}\n\n{lead}{rest}"


def _changes(turn: Turn, found: list[Change]) -> str:
    """The changed values as a list: "GPU L40S instead of H100, context 8k"."""
    parts = [
        FOLLOWUP.say(turn, "changed" if c.old is not None else "added", label=_label(turn, c.slot), new=c.new, old=c.old)
        for c in found
    ]
    return FOLLOWUP.say(turn, "joiner").join(parts)


def _affects(turn: Turn, unused: list[Change], also: bool = False) -> str:
    """What the values this calculation does not read would change instead, each with the calculation that uses it
    (text.yaml followup.not_used.affects, by slot); ``also``: said after a re-run that used the other values."""
    if not unused:
        return ""
    said = FOLLOWUP.say(turn, "not_used.also", values=_changes(turn, unused)) if also else ""
    affects = FOLLOWUP.data["not_used"]["affects"]
    known = list(dict.fromkeys(c.slot for c in unused if c.slot in affects))
    return said + "".join(FOLLOWUP.say(turn, f"not_used.affects.{slot}") for slot in known)


def _label(turn: Turn, slot: str) -> str:
    """A slot's label, or a running cost's (colocation, staff), which the reader keeps outside the slots."""
    if slot.startswith(RUNNING_COST):
        return FOLLOWUP.say(turn, f"running_cost.{slot.removeprefix(RUNNING_COST)}")
    return slot_label(slot, turn.language)


def _delta(turn: Turn, before: list[ToolCall]) -> str:
    """The re-run's headline figure against the previous answer's, when both ran the answer's tool once."""
    name = next((call.name for call in turn.calls if call.name not in LOOKUPS), None)  # the tool behind the answer
    entry = FOLLOWUP.data["delta"].get(name)
    if entry is None:
        return ""
    now = [call for call in turn.calls if call.name == name and call.ok and call.result]
    then = [call for call in before if call.name == name and call.result]
    if name == SIZED and len(now) > 1 and not _headline(now):  # a sizing tried one split after another: its count moved
        return _resized(turn, now, then)
    now, then = [call.result for call in _headline(now)], [call.result for call in _headline(then)]
    if len(now) != 1 or len(then) != 1:  # several sizes tried on either side: no one figure to set beside the other
        return ""
    if "paths" in entry:  # a ranked answer: its chosen option moves as a whole (config, count, price, speed)
        return _moved(turn, _chosen(then[0], entry["paths"]), _chosen(now[0], entry["paths"]), now[0].get("currency") or "")
    new, old = now[0].get(entry["field"]), then[0].get(entry["field"])
    if not isinstance(new, int | float) or not isinstance(old, int | float) or old <= 0 or new <= 0:
        return ""
    figures = {"name": turn.text(entry["name"]), "unit": turn.text(entry["unit"]), "old": number(old), "new": number(new)}
    if number(old) == number(new):
        return FOLLOWUP.say(turn, "delta_same", **figures)
    return FOLLOWUP.say(turn, "delta_ratio", ratio=number(new / old, 2), **figures)


def _concluded(calls: list[ToolCall]) -> ToolCall | None:
    """The throughput estimate a sizing settled on: the one at the largest load, the first of equals (the probes at one
    request and the alternatives after it are not the answer's)."""
    return max(calls, key=lambda call: call.args.get("batch") or 1) if calls else None


def _resized(turn: Turn, now: list[ToolCall], then: list[ToolCall]) -> str:
    """A count sized again with one value changed: the cards and their split before and after."""
    new, old = _concluded(now), _concluded(then)
    if new is None or old is None or not new.result or not old.result:
        return ""
    figures = {"old_count": f"{old.result['num_gpus']:,}", "new_count": f"{new.result['num_gpus']:,}", "old_tp": old.result["tp"], "new_tp": new.result["tp"]}
    figures["split"] = FOLLOWUP.say(turn, "delta_split.same" if figures["old_tp"] == figures["new_tp"] else "delta_split.moved", **figures)
    return FOLLOWUP.say(turn, "delta_sized_same" if figures["old_count"] == figures["new_count"] else "delta_sized", **figures)


def _chosen(result: dict, paths: list[str]) -> object:
    """The first of ``paths`` that leads somewhere: the recommended tier's option, else (no option meets the load,
    so no tiers) the first option listed, which the answer leads with."""
    return next((part for path in paths if (part := at_path(result, path)) is not None), None)


def _moved(turn: Turn, old: object, new: object, currency: str) -> str:
    """The recommended configuration before and after the re-run, side by side: a buyer acts on the config, its
    count and its price, and the per-user speed says whether the new load is still served."""
    if not isinstance(old, dict) or not isinstance(new, dict) or not old.get("config_label") or not new.get("config_label"):
        return ""
    figures = {}
    for when, option in (("old", old), ("new", new)):
        speed = option.get("tokens_per_s_per_user")
        figures |= {
            f"{when}_config": turn.text(option["config_label"]),
            f"{when}_count": str(option.get("count") or "—"),
            f"{when}_price": money(option.get("purchase_cost"), currency),
            f"{when}_speed": number(speed) if isinstance(speed, int | float) else "—",
        }
    same = old.get("gpu_id") == new.get("gpu_id") and old.get("count") == new.get("count")
    return FOLLOWUP.say(turn, "delta_recommend_same" if same else "delta_recommend", **figures)


def _headline(calls: list[ToolCall]) -> list[ToolCall]:
    """The calls behind an answer's headline figure: with alternatives offered beside it ("what meets it": other cards,
    counts, precisions) and probes at one request, the first call's setup at its largest load."""
    # a default the verdict hangs on, probed after the estimate ("at batch 8 it needs 110 GB"), is not its headline
    calls = [call for call in calls if not any(other is not call and sensitivity.is_probe(call, other) for other in calls)]
    if len(calls) <= 1:
        return calls
    setup = ("gpu", "num_gpus", "tp", "precision", "model")
    same = [call for call in calls if all(call.args.get(key) == calls[0].args.get(key) for key in setup)]
    top = max(call.args.get("batch") or 1 for call in same)
    if top < max(call.args.get("batch") or 1 for call in calls):  # the first call was a probe, not the answer's setup: no one figure
        return []
    return [call for call in same if (call.args.get("batch") or 1) == top]


def why(turn: Turn, diagnosis_why: Callable[[Turn], dict | None] | None = None) -> str:
    """"why?" after an answer: the main driver of the figure just given, in a few lines with its formula, from the
    calculation this turn re-ran; "" when no calculation here has an explanation (the caller then shows the whole
    calculation). ``diagnosis_why``: the figures of a problem thread's leading cause (offline/tasks/troubleshoot/trouble.py)."""
    entries = FOLLOWUP.data["why"]
    if turn.intent == PROBLEM and diagnosis_why is not None:
        figures = diagnosis_why(turn)
        if figures is None:
            return ""
        key = "why.troubleshoot" if figures.get("facts") else "why.troubleshoot_symptom_only"
        return FOLLOWUP.say(turn, key, **figures)
    for call in turn.calls:
        entry = entries.get(call.name)
        if entry is None or not call.ok or not call.result:
            continue
        # sizes tried (cards, count, split); the same setup probed at another precision is still one size
        several = entry.get("single_call") and len({tuple(c.args.get(key) for key in SIZE_ARGS) for c in turn.calls if c.name == call.name}) > 1
        figures = _figures(turn, call.result, entry.get("total"))
        for path in entry.get("merge", []):  # a ranked answer's figures sit in its chosen option and its memory estimate
            part = at_path(call.result, path)
            if isinstance(part, dict):
                figures.update(_figures(turn, part, entry.get("total")))
        figures.update({f"asked_{key}": number(value, 2) for key, value in call.args.items() if isinstance(value, int | float) and not isinstance(value, bool)})
        if any(figures.get(field) in (None, "—") for field in entry.get("needs", [])):
            return ""
        verdict = _verdict(turn, call.result, entry, figures)
        # several sizes tried: which one the answer chose is the answer's own business; a verdict on the setup the user
        # stated ("not all 200 at once on 2 cards") is still explained from that setup's call
        if several and not (verdict and _stated_setup(turn, call)):
            return ""
        for key in (call.name, *entry.get("fallback", [])):  # without a figure the first wording needs, the next that does without it
            try:
                return verdict + FOLLOWUP.say(turn, f"why.{key}", **figures)
            except (KeyError, IndexError):  # a figure this result does not carry: no half-filled sentence
                continue
        return ""
    return ""


SIZE_ARGS = ("gpu", "num_gpus", "tp")  # what makes two calls of one tool two sizes tried
WHY_CARD_REASONS = 5  # the card's reasoning lines shown under the verdict; the card itself has the rest


def why_card(turn: Turn, answered: str, card: ConceptCard) -> str:
    """"why?" after a card's answer (``answered``: that answer's text, run again unseen): its verdict, then the card's
    own reasoning and evidence, one line each, so the reader sees what the verdict rests on; its sources cited."""
    verdict = verdict_of(answered)
    reasons = [line for line in sentences(card.answer.pick(turn.language)) if line.strip() and line.strip() not in verdict][:WHY_CARD_REASONS]
    if not reasons:
        return ""
    for source in card.sources:
        turn.cite(f"{CARD_PREFIX}{card.id}:{source.url}", source.cited, urls=[source.url])
    lines = [FOLLOWUP.say(turn, "why_card.reason", reason=line.strip()) for line in reasons]
    return "\n".join([FOLLOWUP.say(turn, "why_card.lead", verdict=verdict), *lines, "", FOLLOWUP.say(turn, "why_card.next")])


def _stated_setup(turn: Turn, call: ToolCall) -> bool:
    """Whether ``call`` ran the card count the thread states (none stated: any)."""
    stated = turn.reading.state.get("gpu_count")
    return stated is None or stated == call.args.get("num_gpus")


def _verdict(turn: Turn, result: dict, entry: dict, figures: dict[str, str]) -> str:
    """A yes/no answer's verdict explained before its figure's driver ("why?" after "does not fit on 2× 4090"): what it was
    held against, by how much (the `gap` between two result fields: {need}, {held}, {gap}), and what would change it. The result field named by
    the entry's `verdict` picks the wording (text.yaml followup.why_verdict.<wording>.<value>); `verdict` may list several,
    the first that applies winning; `short`: only when the first gap field exceeds the second ("not all 200 at once").
    "" without one."""
    specs = entry.get("verdict") or []
    for spec in specs if isinstance(specs, list) else [specs]:
        value = result.get(spec["field"])
        if not isinstance(value, str) or value not in FOLLOWUP.data["why_verdict"].get(spec["wording"], {}):
            continue
        first, second = (result.get(field) for field in spec["gap"])
        if not isinstance(first, int | float) or not isinstance(second, int | float) or (spec.get("short") and first <= second):
            continue
        shown = {"need": number(first, 1), "held": number(second, 1), "gap": number(abs(first - second), 1)}
        try:
            return FOLLOWUP.say(turn, f"why_verdict.{spec['wording']}.{value}", **(figures | shown)) + " "  # two bold runs must not touch
        except (KeyError, IndexError):  # a figure this result does not carry: the next verdict, or none
            continue
    return ""


def figure(turn: Turn, calls: list[ToolCall]) -> str:
    """"is that per GPU or total?" / "does that include cooling?" (Ask.asks_of_figure): the previous answer's figures
    read from its tool result in ``calls``: each headline figure with its scope, or the parts the figure counts with
    their formulas."""
    call = figure_tool(calls)
    if call is None:
        return FOLLOWUP.say(turn, "figure.nothing")
    entry = FOLLOWUP.data["figure"]["tools"][call.name]
    if turn.ask.asks_of_figure == "includes":
        items = [i for i in call.result.get("items", []) if isinstance(i, dict) and isinstance(i.get("value"), int | float)]
        if not items:
            return FOLLOWUP.say(turn, "figure.nothing")
        lines = [FOLLOWUP.say(turn, "figure.include_line", label=turn.text(i["label"]), value=_item_value(turn, i), formula=turn.formula(i))
                 for i in items]
        return "\n".join([FOLLOWUP.say(turn, "figure.includes_lead"), *lines])
    count = 1
    for path in entry["count"]:
        part = at_path(call.result, path)
        count *= part if isinstance(part, int) and part > 0 else 1
    currency = call.result.get("currency") or ""
    lines = []
    for spec in entry["figures"]:
        value = at_path(call.result, spec["field"])
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        shown = (lambda v: money(v, currency)) if spec.get("money") else (lambda v: f"{number(v)} {turn.text(spec['unit'])}")
        lines.append(FOLLOWUP.say(turn, f"figure.scope_line.{spec['scope']}", name=turn.text(spec["name"]), value=shown(value), count=f"{count:,}",
                                 per_gpu=shown(value / count), all=shown(value * count)))
    if not lines:
        return FOLLOWUP.say(turn, "figure.nothing")
    return "\n".join([FOLLOWUP.say(turn, "figure.scope_lead", count=f"{count:,}"), *lines])


def _item_value(turn: Turn, item: dict) -> str:
    """A line item's value with its unit in words; an amount of money with its currency's symbol."""
    code = str(item.get("unit", ""))
    if code in CURRENCIES:
        return money(item["value"], code)
    return f"{number(item['value'], 2)} {unit(code, turn.language)}".strip()


def at_path(result: dict, path: str) -> object:
    """The part of a result at a dotted path ("tiers.0.option"); None where the path leads nowhere."""
    part: object = result
    for step in path.split("."):
        if isinstance(part, list) and step.isdigit() and int(step) < len(part):
            part = part[int(step)]
        elif isinstance(part, dict):
            part = part.get(step)
        else:
            return None
    return part


def _figures(turn: Turn, result: dict, total_field: str | None) -> dict[str, str]:
    """A result's top-level numbers as shown, its words in the reader's language, and its two largest parts."""
    figures: dict[str, str] = {}
    for field, value in result.items():
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            figures[field] = number(value, 2)
        elif isinstance(value, dict) and set(value) == {"en", "zh"}:  # a label the tool words in both languages
            figures[field] = turn.text(value)
        elif isinstance(value, str):
            names = FOLLOWUP.data["why"].get(field, {})
            figures[field] = FOLLOWUP.say(turn, f"why.{field}.{value}") if value in names else value
    items = sorted((i for i in result.get("items", []) if isinstance(i, dict) and isinstance(i.get("value"), int | float)),
                   key=lambda i: -i["value"])  # fmt: skip
    total = result.get(total_field) if total_field else None
    for prefix, item in zip(("top", "next"), items):
        figures[f"{prefix}_label"] = turn.text(item["label"])
        figures[f"{prefix}_value"] = number(item["value"], 2)
        figures[f"{prefix}_formula"] = turn.formula(item)
    if items and isinstance(total, int | float) and total > 0:
        figures["total"] = number(total, 1)
        figures["top_share"] = number(100 * items[0]["value"] / total, 0)
    return figures


def with_setup(turn: Turn, body: str) -> str:
    """A general answer to a technique weighed in a calculation's thread ("would expert parallelism help here?"), with
    the thread's setup named right after its first paragraph of substance: the reader sees which setup the card is read
    against and how to get a figure for it. The body alone when the thread holds no model or card."""
    setup = _setup(turn)
    if not setup:
        return body
    paragraphs = body.split("\n\n")
    first = next((n for n, p in enumerate(paragraphs) if p.strip() and not _title(p)), len(paragraphs) - 1)
    paragraphs.insert(first + 1, FOLLOWUP.say(turn, "setup", setup=setup))
    return "\n\n".join(paragraphs)


def _title(paragraph: str) -> bool:
    line = paragraph.strip()
    return line.startswith("**") and line.endswith("**") and line.count("**") == 2


def _setup(turn: Turn) -> str:
    """The thread's model and cards as the reader knows them ("Mixtral 8x7B on 8× NVIDIA A100 80GB SXM"); "" when it has neither."""
    state = turn.reading.state
    model = next((found.name for v in state.slots.get("model", []) if (found := _model(turn, v.value))), None)
    gpu = next((found.name for v in state.slots.get("gpu", []) if (found := turn.catalog.find_gpu(str(v.value)))), None)
    count = next((v.value for v in state.slots.get("gpu_count", []) if isinstance(v.value, int)), 1)
    if model and gpu:
        return FOLLOWUP.say(turn, "setup_model_on_gpus", model=model, count=count, gpu=gpu)
    if model:
        return FOLLOWUP.say(turn, "setup_model", model=model)
    return FOLLOWUP.say(turn, "setup_gpus", count=count, gpu=gpu) if gpu else ""


def _model(turn: Turn, name: object):
    """A catalog model by the id the reader keeps; None for a size or a name the catalog lacks."""
    try:
        return turn.catalog.model(str(name))
    except (KeyError, LookupError, ValueError):
        return None


# ---- a new subject asked of the thread's configuration ----
def config_words(turn: Turn, layout: dict) -> str:
    """"4× Instinct MI300X in 1 server" as the reader knows it: the recommendation's own label when it has one."""
    if layout.get("label"):
        return layout["label"]
    gpu = turn.catalog.find_gpu(layout["gpu"])
    name = gpu.name if gpu else layout["gpu"]
    servers = max(int(layout.get("servers") or 1), 1)
    key = "config.servers" if servers > 1 else "config.cards"
    words = NEW_SUBJECT.say(turn, key, count=layout["count"], gpu=name, servers=servers, per_server=layout["count"] // servers)
    tp = layout.get("tp")
    if tp and layout["count"] > tp and layout["count"] % tp == 0:  # "1200× L20 (150 copies at TP=8)": the split the answer chose
        words += NEW_SUBJECT.say(turn, "config.copies", copies=layout["count"] // tp, tp=tp)
    return words


def cannot(turn: Turn, layout: dict | None) -> str:
    """Nothing new to work out: what the advisor can compute for the configuration, and one precise question."""
    if layout is None:
        return NEW_SUBJECT.say(turn, "cannot.no_configuration")
    return NEW_SUBJECT.say(turn, "cannot.for_configuration", config=config_words(turn, layout))


def price(turn: Turn, layout: dict, args: dict, r: dict) -> str:
    """What the thread's configuration costs, from estimate_server_price's result ``r`` for ``args`` (plan.price_args: one
    server's cards): the whole machines (cards and the host of their server class), per server and in all; "" when no
    price can be said."""
    servers = max(int(layout.get("servers") or 1), 1)
    per_server = args["gpus"]
    whole = r.get("whole")
    if not whole:  # no dated card price: what is known for this configuration, and the one figure that completes it
        if r.get("host") is None:
            return ""
        return NEW_SUBJECT.say(turn, "price.no_card_price", config=config_words(turn, layout), gpu=r.get("gpu_name") or layout["gpu"],
                               host=money(r["host"], turn.currency), servers=servers, per_server=per_server)
    currency = whole["currency"]
    figures = {"config": config_words(turn, layout), "total": range_text(whole["low"] * servers, whole["high"] * servers, currency),
               "each": range_text(whole["low"], whole["high"], currency), "servers": servers, "per_server": per_server, "gpu": r["gpu_name"],
               "host": money(r["host"], currency) if r.get("host") is not None else "—", "date": whole["date"],
               "card": range_text(r["card"]["low"], r["card"]["high"], currency) if r.get("card") else "—"}  # fmt: skip
    lines = [NEW_SUBJECT.say(turn, "price.lead", **figures)]
    if whole["basis"] != "quote":
        lines.append(NEW_SUBJECT.say(turn, "price.parts", **figures))
    lines.append(NEW_SUBJECT.say(turn, "price.estimate" if whole["basis"] == "estimate" else "price.dated", **figures))
    lines.append(NEW_SUBJECT.say(turn, "price.next"))
    for source in whole.get("sources", [])[:3]:
        turn.cite(f"price:{layout['gpu']}:{source[:40]}", r["gpu_name"], source, citation=source)
    return "\n\n".join(lines)
