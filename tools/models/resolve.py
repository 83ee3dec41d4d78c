"""Resolve whatever a user gives as "the model" into one ``ModelSpec``.

Accepted: a catalog name or alias ("Llama3 8B", or a Chinese nickname of DeepSeek-R1), a bare size ("7B", 7 billion in Chinese units,
"1.5T" → an approximate generic decoder), pasted config.json text, or a parsed config dict.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import MAX_NAME_CHARS, Catalog
from knowledge.checkpoint_names import load_checkpoint_names
from knowledge.fact_notes import fact_note
from knowledge.models import ModelSpec
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.models.checkpoint import split_checkpoint_name
from tools.models.generic import generic_model
from tools.models.hf_config import MAX_PARAMS, parse_config_text, spec_from_hf_config
from tools.precision import weight_format
from tools.quantities import MIN_PARAM_COUNT, normalize_quantity, parse_number, parse_param_count

TEXT = shipped("model_text.yaml")


def resolve_model(ref: str | dict[str, Any] | ModelSpec, catalog: Catalog) -> ModelSpec:
    """The ``ModelSpec`` for ``ref``; bad or unknown input raises a bilingual ``AdvisorError``."""
    if isinstance(ref, ModelSpec):
        return ref
    if isinstance(ref, dict):
        return spec_from_hf_config(ref)
    if not isinstance(ref, str) or not ref.strip():
        raise AdvisorError(
            "missing_model",
            **TEXT.text("resolve.missing_model").model_dump(),
        )
    text = ref.strip()
    if text[0] in "{[":  # looks like pasted JSON
        return spec_from_hf_config(parse_config_text(text))
    if len(text) > MAX_NAME_CHARS:  # pasted prose or a log, not a name: don't fuzzy-match megabytes
        raise AdvisorError(
            "unknown_model",
            **TEXT.text("resolve.too_long", text=text[:40]).model_dump(),
            suggestions=["llama-3.1-8b", "qwen2.5-7b", "7B"],
        )
    found = catalog.find_model(text)
    if found is not None:
        return found
    checkpoint = split_checkpoint_name(text, load_checkpoint_names())
    found = catalog.find_model(checkpoint.base) if checkpoint.base != text else None
    if found is not None:
        return found
    size = _bare_size(text)
    if size is not None:
        return generic_model(size, catalog)
    named = _named_with_size(checkpoint.base, catalog)
    if named is not None:
        return named
    return catalog.model(text)  # raises unknown_model with the closest catalog names


def checkpoint_precision(name: str | None, catalog: Catalog) -> str | None:
    """The precision a pasted checkpoint name states ("...-GPTQ-Int8", ":q4_K_M"), when the name is not itself a catalog entry."""
    if not name or len(name) > MAX_NAME_CHARS or catalog.find_model(name) is not None:
        return None
    return split_checkpoint_name(name, load_checkpoint_names()).precision


def checkpoint_precision_note(name: str | None, catalog: Catalog) -> tuple[ModelSpec, str, Text] | None:
    """A pasted checkpoint name that states its precision: the catalog model, that precision, and the sentence
    saying the figures are for that edition; None for any other text."""
    precision = checkpoint_precision(name, catalog)
    if precision is None or name is None:
        return None
    checkpoint = split_checkpoint_name(name, load_checkpoint_names())
    spec = catalog.find_model(checkpoint.base)
    if spec is None:
        return None
    fmt = weight_format(precision)
    return spec, precision, fact_note("checkpoint_precision", name=name, model=spec.label, precision=Text(en=fmt.label, zh=fmt.name_zh))


MAX_PARAMS_B = MAX_PARAMS / 1e9  # 100T, in the billions a request's params_b is given in
MIN_PARAMS_B = MIN_PARAM_COUNT / 1e9  # a million parameters: anything smaller is a typo, not a language model


def resolve_sized_model(model: str | None, params_b: float | None, catalog: Catalog) -> tuple[ModelSpec, bool]:
    """The model of a request that names it, gives its size in billions, or both.

    ``params_b`` is range-checked (a bilingual ``invalid_model_size`` error); with a name it overrides
    the catalog parameter count and keeps the layer shapes. Returns (spec, whether it overrode).
    """
    if params_b is not None:
        check_range(params_b, *INPUT_NAMES.pair("params_b"), minimum=MIN_PARAMS_B, maximum=MAX_PARAMS_B,
                    code="invalid_model_size", hint=["7", "70", "405"])  # fmt: skip
    return _sized_model(model, params_b, catalog)


@lru_cache(maxsize=512)
def _sized_model(model: str | None, params_b: float | None, catalog: Catalog) -> tuple[ModelSpec, bool]:
    """Cached: resolution (fuzzy name matching, generic shapes) dominates a calculator's latency."""
    if model is None or not model.strip():
        return resolve_model(f"{params_b:g}B" if params_b is not None else "", catalog), False  # "" raises "name a model"
    spec = resolve_model(model, catalog)
    if params_b is not None and abs(params_b - spec.params_b) > 1e-9:
        return spec.model_copy(update={"params_b": params_b}), True
    return spec, False


# Characters that separate the parts of a model name ("Foo-34B", "foo_13b", "Foo 7B Chat")
NAME_SEPARATORS = str.maketrans({"-": " ", "_": " ", ":": " ", "/": " "})


def _named_with_size(name: str, catalog: Catalog) -> ModelSpec | None:
    """A name the catalog lacks that carries its size as one part ("Foobar-34B", "ACME-13b-chat"): a generic decoder of
    that size under the user's own name, so the answer sizes what was asked instead of ending at "not found". A name
    with no size part, or more than one, is left to the catalog's error (which names the closest models)."""
    parts = name.translate(NAME_SEPARATORS).split()
    sizes = [count for part in parts if (count := parse_param_count(part)) is not None]
    if len(sizes) != 1 or sizes[0] > MAX_PARAMS or parts[0].casefold() in _catalog_first_words(catalog):
        return None  # a known family at another size ("Qwen2.5 70B") is a near miss: the error names the catalog's models
    spec = generic_model(sizes[0], catalog)
    return spec.model_copy(update={
        "name": TEXT.pick("generic.named", "en", name=name, label=spec.name),
        "name_zh": TEXT.pick("generic.named", "zh", name=name, label=spec.name_zh),
    })


def _catalog_first_words(catalog: Catalog) -> frozenset[str]:
    """The first word of every catalog model's name ("llama", "qwen2.5", "deepseek"): a name starting with one is that family's."""
    return frozenset(m.name.translate(NAME_SEPARATORS).split()[0].casefold() for m in catalog.models)


def _bare_size(text: str) -> float | None:
    """A parameter count if ``text`` is just a size; errors for sizes that cannot be meant."""
    count = parse_param_count(text)
    value = count if count is not None else parse_number(normalize_quantity(text).rstrip(TEXT.entry("resolve.parameters_suffix")))
    if value is None:
        return None
    if value <= 0:
        raise AdvisorError(
            "invalid_model_size",
            **TEXT.text("resolve.not_positive", text=text).model_dump(),
            suggestions=TEXT.entry("resolve.size_examples"),
        )
    if value > MAX_PARAMS:
        raise AdvisorError(
            "invalid_model_size",
            **TEXT.text("resolve.too_large", text=text, value=value).model_dump(),
            suggestions=["7B", "70B", "1.5T"],
        )
    if count is None:
        raise AdvisorError(
            "ambiguous_model_size",
            **TEXT.text("resolve.no_unit", text=text, billions=f"{value:g}", hundred_millions=f"{value * 10:g}").model_dump(),
            suggestions=[f"{value:g}B"],
        )
    return value
