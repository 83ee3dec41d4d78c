"""A training data set said as a count of samples ("fine-tune on 50k samples", "50 thousand samples, about 2000 tokens each" in Chinese): the count is
samples, never a token total nor a context length; the run's tokens are that count times the length of one sample, read
beside it when stated ("of 512 tokens", "2000 tokens each") and otherwise assumed by the answer (Ask.samples)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from advisor.name_matcher import normalize_text
from advisor.nlu.number_values import K_SUFFIX, Value
from advisor.nlu.pattern_words import pattern
from advisor.nlu.values import find_values
from knowledge.catalog import Catalog

SAMPLE_AFTER = pattern("sample_words", r"\s*(?:{})(?![a-z])")
LENGTH_GAP = pattern("sample_length_gap")
MIN_SAMPLES = 100  # "3 examples of the error" counts no data set
MAX_SAMPLE_TOKENS = 1_000_000  # a length beyond this is no sample's ("20k rows to fine-tune a 7B": the 7B is the model)


class SamplesSaid(BaseModel):
    """The samples a message states and the length of one, when said."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(description='Samples in the data set ("50k samples" → 50,000).')
    length_tokens: int | None = Field(None, description='Tokens in one sample when stated beside the count ("of 512 tokens").')

    def misreadings(self) -> tuple[float, ...]:
        """What a token slot holds when it took these words for tokens: the count itself, "50k" read as a length (k = 1,024),
        or the length of one sample."""
        return (float(self.count), self.count * 1024 / 1000, *((float(self.length_tokens),) if self.length_tokens else ()))


def _count(value: Value) -> float | None:
    """A value as a plain count: "50k" is 50,000 samples (a token length counts k as 1,024), five ten-thousands 50,000."""
    if value.kind == "money":
        amount, currency, _ = value.value
        return float(amount) if not currency else None
    if value.kind == "tokens":
        return float(value.value) * 1000 / 1024 if K_SUFFIX.search(value.surface) else float(value.value)
    return float(value.value) if value.kind in ("number", "thousands") and isinstance(value.value, int | float) else None


def samples_said(message: str, catalog: Catalog) -> SamplesSaid | None:
    """The first count followed by a sample word, with the token length stated after it in the same sentence."""
    text = normalize_text(message if isinstance(message, str) else "")
    values = find_values(text, catalog)
    for index, value in enumerate(values):
        count = _count(value)
        if count is None or count < MIN_SAMPLES or not SAMPLE_AFTER.match(text, value.end):
            continue
        length = None
        for later in values[index + 1 :]:
            if later.kind == "tokens" and float(later.value) < MAX_SAMPLE_TOKENS and LENGTH_GAP.fullmatch(text, value.end, later.start):
                length = int(float(later.value))
                break
        return SamplesSaid(count=round(count), length_tokens=length)
    return None
