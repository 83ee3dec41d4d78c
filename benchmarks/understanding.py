"""Understanding measured on the frozen held-out split: intent accuracy, slot F1, multi-turn, confusion."""

from __future__ import annotations

from functools import lru_cache

from advisor.nlu.corpus import load_schema
from advisor.nlu.evaluate import BLIND_SPLITS, LanguageScore, blind_split, evaluate, heldout_corpus
from advisor.nlu.reader import shared_understanding

TARGETS = {"intent": 0.95, "slots": 0.90, "multi_turn": 0.90}


@lru_cache(maxsize=1)
def scores() -> dict[str, LanguageScore]:
    return evaluate(shared_understanding(), heldout_corpus())


@lru_cache(maxsize=4)
def blind_scores(name: str) -> dict[str, LanguageScore]:
    return evaluate(shared_understanding(), blind_split(name))


def rows(measured: dict[str, LanguageScore]) -> list[dict]:
    out = []
    for name, status in BLIND_SPLITS.items():
        for language, score in sorted(blind_scores(name).items()):
            ok = score.multi_turn >= TARGETS["multi_turn"]
            label = f"blind {name} multi-turn success ({language}, {score.conversations} conversations; {status})"
            result = f"{score.multi_turn:.3f} (by label {score.multi_turn_by_label:.3f})"
            out.append({"name": label, "result": result, "target": f"≥ {TARGETS['multi_turn']}", "ok": ok})
    for language, score in sorted(measured.items()):
        out += [
            {"name": f"held-out intent accuracy ({language}, {score.utterances} utterances)", "result": f"{score.intent_accuracy:.3f}", "target": f"≥ {TARGETS['intent']}", "ok": score.intent_accuracy >= TARGETS["intent"]},
            {"name": f"held-out slot F1 ({language})", "result": f"{score.slot_f1:.3f}", "target": f"≥ {TARGETS['slots']}", "ok": score.slot_f1 >= TARGETS["slots"]},
            {"name": f"held-out multi-turn success ({language}, {score.conversations} conversations)", "result": f"{score.multi_turn:.3f}", "target": f"≥ {TARGETS['multi_turn']}", "ok": score.multi_turn >= TARGETS["multi_turn"]},
        ]  # fmt: skip
    return out


def confusion_markdown(measured: dict[str, LanguageScore]) -> str:
    """Rows: labelled intent; columns: predicted intent; both languages summed."""
    intents = list(load_schema().intents)
    short = {name: name.replace("_", " ")[:9] for name in intents}
    lines = ["| labelled \\ read as | " + " | ".join(short[i] for i in intents) + " |", "|---" * (len(intents) + 1) + "|"]
    for gold in intents:
        counts = [sum(score.confusion.get((gold, predicted), 0) for score in measured.values()) for predicted in intents]
        lines.append(f"| {gold} | " + " | ".join(str(c) if c else "·" for c in counts) + " |")
    return "\n".join(lines)
