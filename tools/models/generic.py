"""A stand-in dense decoder for a bare size ("7B", "7 billion" in Chinese units, "1.5T") when no model is named.

Scaling rule, anchored on the real Llama shapes in the catalog (1B, 3B, 8B, 13B, 70B, 405B):

* hidden width: interpolated between the two anchors around the size on a log-log scale;
  beyond the smallest/largest anchor it grows as size^(1/3) (depth and width scale together,
  and parameters grow as depth × width²). Rounded to 256/512/1024 like real models.
* head_dim 128, heads = hidden / 128, KV heads = gcd(heads, 8) (Llama 3 uses 8 KV heads).
* MLP width: the anchors' ffn/hidden ratio, interpolated the same way, rounded to 256.
* vocabulary: Llama 3's 128,256 tokens (tied below 5B, as in Llama 3.2 1B/3B); tiny models
  fall back to Llama 2's 32,000 so the embedding does not dwarf the size asked for.
* layers: whatever count brings the computed total closest to the size asked for.
"""

from __future__ import annotations

import math

from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog
from knowledge.models import ModelSpec
from knowledge.wording import shipped
from tools.models.param_count import count_params

TEXT = shipped("model_text.yaml")

ANCHOR_IDS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-2-13b", "llama-3.1-70b", "llama-3.1-405b")
HEAD_DIM = 128
LARGE_VOCAB, SMALL_VOCAB = 128256, 32000
TIED_BELOW = 5e9
GENERIC_CONTEXT = 131072  # modern open models; the estimator takes the user's context anyway


# The Chinese of every generic spec's source note, for the tools that show it
SOURCE_ZH = TEXT.entry("generic.source_zh")


def anchors(catalog: Catalog) -> list[ModelSpec]:
    found = sorted((m for m in catalog.models if m.id in ANCHOR_IDS), key=lambda m: m.params_b)
    if len(found) < 2:
        raise AdvisorError(
            "catalog_incomplete",
            **TEXT.text("generic.catalog_incomplete", anchors=", ".join(ANCHOR_IDS)).model_dump(),
        )
    return found


def interpolate(params: float, points: list[tuple[float, float]], exponent_outside: float) -> float:
    """Value at ``params`` from (params, value) points, log-log between them, power law outside."""
    log_p = math.log(params)
    first, last = points[0], points[-1]
    if params <= first[0]:
        return first[1] * (params / first[0]) ** exponent_outside
    if params >= last[0]:
        return last[1] * (params / last[0]) ** exponent_outside
    for (p0, v0), (p1, v1) in zip(points, points[1:]):
        if p0 <= params <= p1:
            t = (log_p - math.log(p0)) / (math.log(p1) - math.log(p0))
            return math.exp(math.log(v0) + t * (math.log(v1) - math.log(v0)))
    raise AssertionError("points must be sorted")  # unreachable for sorted anchors


def round_width(hidden: float) -> int:
    step = 1024 if hidden >= 8192 else 512 if hidden >= 2048 else 256
    return max(256, step * round(hidden / step))


def generic_model(params: float, catalog: Catalog) -> ModelSpec:
    """A synthetic dense decoder of about ``params`` parameters (see module docstring)."""
    refs = anchors(catalog)
    sizes = [m.params_b * 1e9 for m in refs]
    hidden = round_width(interpolate(params, list(zip(sizes, [m.hidden for m in refs])), 1 / 3))
    ratio = interpolate(params, list(zip(sizes, [m.ffn / m.hidden for m in refs])), 0.0)
    heads = hidden // HEAD_DIM
    vocab = LARGE_VOCAB if LARGE_VOCAB * hidden <= 0.25 * params else SMALL_VOCAB
    shape = dict(
        hidden=hidden,
        heads=heads,
        kv_heads=math.gcd(heads, 8),
        head_dim=HEAD_DIM,
        ffn=max(256, 256 * round(hidden * ratio / 256)),
        vocab=vocab,
        tied_embeddings=params < TIED_BELOW,
        attention="gqa" if math.gcd(heads, 8) < heads else "mha",
        max_context=GENERIC_CONTEXT,
    )
    # Parameters are linear in the layer count, so two probes give the per-layer cost.
    one, two = (count_params(_spec(params, 1, shape)).total, count_params(_spec(params, 2, shape)).total)
    layers = max(1, round((params - (2 * one - two)) / (two - one)))
    return _spec(params, layers, shape)


def format_billions(size_b: float) -> str:
    """7 → '7', 0.5 → '0.5', 1500 → '1500' (no exponent notation in ids)."""
    return f"{round(size_b, 3):f}".rstrip("0").rstrip(".")


def _spec(params: float, layers: int, shape: dict) -> ModelSpec:
    size_b = params / 1e9
    label = f"{format_billions(size_b)}B"
    return ModelSpec(
        id=f"generic-{format_billions(size_b)}b",
        name=TEXT.pick("generic.name", "en", label=label),
        name_zh=TEXT.pick("generic.name", "zh", label=label),
        family="generic",
        params_b=size_b,
        layers=layers,
        source=(
            f"Approximate: a Llama-style dense decoder of {label} parameters, made by scaling the catalog's "
            "Llama shapes (tools/models/generic.py), stands in for a model the catalog lacks or did not get. "
            "Name a catalog model or paste its config.json for exact figures."
        ),
        **shape,
    )
