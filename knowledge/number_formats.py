"""Block-scaled number formats (NVFP4, MXFP4): their definitions and primary sources, read from number_formats.yaml.

A value in such a format costs its element bits plus its share of the block's scale; the memory estimator takes
bytes per weight and per cached element from here, so the figure and its definition cannot drift apart.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import read_table
from knowledge.sources import DatedSource

DATA_FILE = Path(__file__).parent / "number_formats.yaml"


class Encoding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str = Field(description="Bit layout, e.g. 'E2M1' (sign, exponent and mantissa bits) or 'E8M0' (a power of two).")
    bits: int = Field(gt=0, le=32)


class BlockFormat(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    element: Encoding
    block_size: int = Field(gt=1, description="Stored values that share one scale.")
    scale: Encoding
    tensor_scale: str = Field("", description="A further scale per tensor, where the format has one (negligible per value).")
    native_vendors: tuple[str, ...] = Field(min_length=1, description="Catalog vendors whose FP4 tensor cores compute in it.")
    source: DatedSource

    @property
    def bits_per_value(self) -> float:
        """Bits each stored value costs, its share of the block scale included (NVFP4 4.5, MXFP4 4.25)."""
        return self.element.bits + self.scale.bits / self.block_size

    @property
    def cited(self) -> str:
        return f"{self.source.cited}: {self.source.says} ({self.source.url})"


class NumberFormats(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    formats: tuple[BlockFormat, ...] = Field(min_length=1)

    def get(self, format_id: str) -> BlockFormat:
        return next(f for f in self.formats if f.id == format_id)


@lru_cache(maxsize=1)
def number_formats() -> NumberFormats:
    return read_table(DATA_FILE, NumberFormats, "number-format table")
