"""Whether a precision can be trusted for the use named ("is FP8 safe for our fine-tune?", "will INT4 lose much quality in serving?",
Ask.decision "precision_safe"): the verdict first, from what decides it (the use, the named card's tensor cores, the
model's size), then the sourced card that holds the quality evidence. The verdict sentences are this package's
text.yaml (section precision_decision); the evidence is the concept card chosen by what it is about, never by the words."""

from __future__ import annotations

from advisor.nlu.subjects import card_subjects
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import ConceptCard, load_concepts
from knowledge.subjects import load_subjects

WORDING = Wording("concept", "precision_decision")
# the formats a card's tensor cores must have for the precision to gain anything (weight-only INT8/INT4 run on any card)
NEEDS_CORES = {"fp8": "fp8_tflops", "fp4": "fp4_tflops"}
FOUR_BIT = frozenset({"int4", "fp4"})
# 4-bit weights: "small models and maths, code and long reasoning suffer first; large chat models tolerate 4 bit best"
# (the quantization-quality card, after the GPTQ and AWQ papers); below this size a model counts as small
SMALL_MODEL_B = 13
QUALITY = "quality"  # the facet of the cards that hold quality evidence
LOWEST_FIRST = ("fp4", "nvfp4", "mxfp4", "int4", "fp8", "mxfp8", "int8", "bf16")  # of two precisions named, the lower is the one in doubt


def family(precision: str) -> str:
    """The precision a block-scaled format belongs to (MXFP8 is FP8, NVFP4 is FP4), from knowledge/subjects.yaml."""
    subject = next((s for s in load_subjects().subjects if s.id == precision), None)
    implied = getattr(subject, "implies", None) or []
    return implied[0] if implied else precision


def precision_asked(turn: Turn) -> str | None:
    """The precision whose trust is asked: the lowest named (a question weighing FP8 against BF16 asks about FP8)."""
    named = turn.ask.named.get("precision", frozenset())
    return next((p for p in LOWEST_FIRST if p in named), next(iter(sorted(named)), None))


def use_of(turn: Turn) -> str:
    """ "training" when the conversation trains or fine-tunes (its workload or the words), else "serving"."""
    workload = turn.ask.workload
    if (workload.task_named and workload.task != "inference") or "training" in turn.ask.named.get("activity", ()):
        return "training"
    return "serving"


def card_lacking(turn: Turn, precision: str) -> str | None:
    """The named card that has no tensor cores for the precision (an A100 asked about FP8), by its catalog row."""
    field = NEEDS_CORES.get(family(precision))
    if field is None:
        return None
    for gpu_id in turn.slots.gpus:
        gpu = turn.catalog.find_gpu(gpu_id)
        if gpu is not None and not getattr(gpu, field):
            return gpu.name
    return None


def verdict_key(turn: Turn, precision: str, use: str) -> str:
    """Which verdict holds: no tensor cores for it on the named card, else by the precision's family and the use (and, for
    4-bit serving, the model's size)."""
    if card_lacking(turn, precision):
        return "no_cores"
    kind = family(precision)
    if kind in FOUR_BIT and use == "serving":
        sizes = turn.ask.model_sizes_b
        return "four_bit_serving_small" if sizes and max(sizes) < SMALL_MODEL_B else "four_bit_serving"
    if kind in FOUR_BIT:
        return "four_bit_training"
    if kind == "bf16":
        return "bf16"
    return f"{'fp8' if kind == 'fp8' else 'int8'}_{use}"


def evidence_card(turn: Turn, precision: str, use: str) -> ConceptCard | None:
    """The concept card that holds the evidence: about this precision (or its family), silent on the use or about this
    one, silent on GPUs or about a named one, on the ask asked when one is; a card on the ask asked, on the named GPU,
    on the use ("FP4 for pretraining": the card on FP4 training), on quality goes first."""
    wanted = {precision, family(precision)}
    gpus = set(turn.ask.named.get("gpu", frozenset()))
    asks = set(turn.ask.named.get("ask", frozenset()))  # "ready for production?": a card on that ask of the precision answers it
    best, best_score = None, None
    for card in load_concepts().cards:
        about = card_subjects(card, turn.catalog)
        if not wanted & about.get("precision", frozenset()):
            continue
        if "activity" in about and use not in about["activity"]:
            continue
        if "gpu" in about and not gpus & about["gpu"]:
            continue
        if "ask" in about and asks and not asks & about["ask"]:
            continue
        if set(about) - {"precision", "activity", "gpu", "ask"}:  # a card on an engine, a capability or a topic answers another question
            continue
        score = (bool(asks) and "ask" in about, "gpu" in about, "activity" in about, QUALITY in (card.facets or []))
        if best_score is None or score > best_score:
            best, best_score = card, score
    return best


def answer(turn: Turn) -> str:
    """The verdict, then the card's evidence (cited); '' when no precision is named."""
    precision = precision_asked(turn)
    if precision is None:
        return ""
    use = use_of(turn)
    key = verdict_key(turn, precision, use)
    label = turn.t(*_label(precision))
    gpu = card_lacking(turn, precision) or ""
    lead = WORDING.say(turn, f"verdict.{key}", precision=label, gpu=gpu, use=WORDING.say(turn, f"use.{use}"))
    parts = [lead]
    card = evidence_card(turn, precision, use)
    if card is not None:
        parts.append(WORDING.say(turn, "evidence") + " " + card.answer.pick(turn.language))
        for source in card.sources:
            turn.cite(f"{CARD_PREFIX}{card.id}:{source.url}", source.cited, urls=[source.url])
    if key != "no_cores" and family(precision) in NEEDS_CORES and not turn.slots.gpus:
        parts.append(WORDING.say(turn, f"changes.{family(precision)}", precision=label))
    return "\n\n".join(parts)


def _label(precision: str) -> tuple[str, str]:
    subject = next((s for s in load_subjects().subjects if s.id == precision), None)
    label = getattr(subject, "label", None)
    if label is None:
        return precision.upper(), precision.upper()
    return label.en, label.zh
