"""The weight format a card is served in when the user names none (knowledge/serving_precision.yaml): FP8 on Hopper,
Ada and Blackwell data-centre parts, W8A8 on Ascend, 4-bit AWQ on older and GeForce cards, each with the page that
says so; the recommender sizes each card in its own format and the answer says which."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.catalog import read_table
from knowledge.gpus import GPU
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).with_name("serving_precision.yaml")


class PracticeSource(DatedSource):
    says: str = Field(min_length=3, description="What the page says that supports the rule.")


class PrecisionRule(BaseModel):
    """Cards of these architectures and segments are served in ``precision`` when none is named."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    precision: str = Field(description="A weight format the memory estimator knows (fp8, int8, awq-int4).")
    architectures: tuple[str, ...] = Field(min_length=1, description="Starts of gpus.yaml `architecture` ('Hopper', 'Ada Lovelace').")
    segments: tuple[str, ...] = Field(min_length=1)
    when: Literal["always", "needed"] = Field("always", description="'needed': only when 16-bit weights do not fit one card.")
    quality_cost: bool = Field(False, description="The format costs measurable quality: the recommended tier prefers cards that do without it.")
    label: Text
    why: Text = Field(description="Why engineers serve these cards in this format, and what it costs in quality.")
    sources: tuple[PracticeSource, ...] = Field(min_length=1)

    def takes(self, gpu: GPU) -> bool:
        return gpu.segment in self.segments and any(gpu.architecture.startswith(a) for a in self.architectures)


class QualityFirst(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Text
    why: Text


class ServingPrecision(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: tuple[PrecisionRule, ...] = Field(min_length=1)
    quality_first: QualityFirst

    def lossy(self) -> set[str]:
        """Formats that cost measurable quality (4-bit)."""
        return {rule.precision for rule in self.rules if rule.quality_cost}

    def rule_for(self, gpu: GPU, precision: str | None = None) -> PrecisionRule | None:
        """The first rule that takes this card (of those serving ``precision`` when given); None: it keeps 16-bit weights."""
        return next((rule for rule in self.rules if rule.takes(gpu) and precision in (None, rule.precision)), None)

    def ladder(self, gpu: GPU) -> tuple[PrecisionRule, ...]:
        """The steps down from 16-bit weights on a card whose rule applies only when needed, in order (INT8, then 4-bit);
        empty when the card's rule always applies or none takes it."""
        first = self.rule_for(gpu)
        if first is None or first.when != "needed":
            return ()
        return tuple(rule for rule in self.rules if rule.takes(gpu) and rule.when == "needed")

    def default_for(self, gpu: GPU, fits: bool | Callable[[str | None], bool]) -> PrecisionRule | None:
        """The one default serving format of a card when the user names none (the recommender and the serving estimate
        both read it): the card's rule when it always applies; else none while 16-bit weights fit one card, then the
        first step of the ladder whose weights fit one card, the last step when none does. ``fits`` answers "do weights
        in this format (None: 16-bit) fit one card?"; a bool answers it for 16-bit only (no fit: the last step)."""
        steps = self.ladder(gpu)
        if not steps:
            return self.rule_for(gpu)
        if not callable(fits):
            return None if fits else steps[-1]
        if fits(None):
            return None
        return next((rule for rule in steps[:-1] if fits(rule.precision)), steps[-1])


@lru_cache(maxsize=1)
def serving_precision() -> ServingPrecision:
    return read_table(DATA_FILE, ServingPrecision, "serving precision rule set")
