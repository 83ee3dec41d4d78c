"""Small helpers to build the estimator's line items with readable, number-substituted formulas.

Every formula is written twice, English and Chinese, from the same numbers: the numbers and symbols
are identical, only the words differ."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.common import LineItem
from tools.memory.constants import CUDA_CONTEXT_BYTES, GB, NON_TORCH_BYTES

MEMORY_TEXT = shipped("memory_text.yaml")


@dataclass(frozen=True)
class Part:
    """One component of per-GPU memory, in bytes, with the formula that produced it.

    The words (labels and formulas in both languages) are filled in only when read: the inverse solver and the
    recommender add up parts for dozens of sizes per call and never show them, and filling the templates cost
    more than the arithmetic."""

    key: str
    bytes: float
    words: Callable[[], tuple[str, str, str, str]] = field(compare=False, repr=False)

    @cached_property
    def worded(self) -> tuple[str, str, str, str]:
        """(label en, label zh, formula en, formula zh), filled once."""
        return self.words()

    @property
    def en(self) -> str:
        return self.worded[0]

    @property
    def zh(self) -> str:
        return self.worded[1]

    @property
    def formula(self) -> str:
        return self.worded[2]

    @property
    def formula_zh(self) -> str:
        return self.worded[3]

    def line(self) -> LineItem:
        # model_construct skips re-validating fields built here; keeps a call well under a millisecond
        label = Text.model_construct(en=self.en, zh=self.zh)
        return LineItem.model_construct(
            key=self.key, label=label, value=round(self.bytes / GB, 6), unit="GB", formula=self.formula, formula_zh=self.formula_zh
        )


def gb(value: float) -> str:
    return f"{value / GB:,.2f} GB"


def count(value: float) -> str:
    """Big counts in scientific form ('8.03e9'), small ones plain."""
    if value < 1e5:
        return f"{value:,.0f}"
    mantissa, exponent = f"{value:.3g}".split("e") if "e" in f"{value:.3g}" else (f"{value:.3g}", "0")
    return f"{mantissa}e{int(exponent)}"


def num(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.3g}"


def divisor(label: str, value: float) -> str:
    """' / 8 (tp)' or '' when the divisor is 1."""
    return f" / {num(value)} ({label})" if value != 1 else ""


# Fixed costs outside the PyTorch allocator that inference and training both pay (the sources are
# next to the constants); vLLM reports its own non-torch figure, so its engine has its own line.
# Named for any accelerator (CANN, ROCm and Metal have one too); the figure is the one measured on CUDA.
def worded_part(key: str, size_bytes: float, texts: Callable[[], tuple[Text, Text]]) -> Part:
    """A Part whose label and formula are bilingual texts (read from memory_text.yaml), built by ``texts`` when read."""

    def words() -> tuple[str, str, str, str]:
        label, formula = texts()
        return label.en, label.zh, formula.en, formula.zh

    return Part(key, size_bytes, words)


def text_part(key: str, size_bytes: float, text_key: str, /, **values: object) -> Part:
    """A Part whose label and formula are ``<text_key>.label`` and ``<text_key>.formula`` of memory_text.yaml."""
    label, formula = f"{text_key}.label", f"{text_key}.formula"

    def words() -> tuple[str, str, str, str]:
        # each language is filled on its own (no Text built in between)
        return (MEMORY_TEXT.pick(label, "en"), MEMORY_TEXT.pick(label, "zh"),
                MEMORY_TEXT.pick(formula, "en", **values), MEMORY_TEXT.pick(formula, "zh", **values))  # fmt: skip

    return Part(key, size_bytes, words)


CUDA_CONTEXT = text_part("cuda_context", CUDA_CONTEXT_BYTES, "parts.cuda_context", size=gb(CUDA_CONTEXT_BYTES))
MULTI_GPU_WORKSPACES = text_part("non_torch", NON_TORCH_BYTES, "parts.multi_gpu_workspaces", size=gb(NON_TORCH_BYTES))
