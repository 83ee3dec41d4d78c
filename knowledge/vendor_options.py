"""Accelerator vendors a mainland-China buyer weighs against each other, with the words that name them.

The rows and their wording live in ``vendor_options.yaml`` beside this file; ``vendor_options`` validates it once
and fails loudly (``CatalogError``) on a malformed row or a part the catalog does not have.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.bilingual import Text
from knowledge.catalog import CatalogError, read_yaml, shipped_gpu_ids

DATA_FILE = Path(__file__).parent / "vendor_options.yaml"


class Vendor(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    label: Text
    names: tuple[str, ...] = Field(min_length=1, description="Words a message names the vendor by, case-folded.")
    china_parts: tuple[str, ...] = Field(description="Catalog parts a mainland buyer can get, best first.")
    software: Text
    porting: Text
    strength: Text
    sources: tuple[str, ...] = ()


class BilingualList(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    en: tuple[str, ...]
    zh: tuple[str, ...]


class VendorText(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    lead: Text
    alternative: Text
    none_fits: Text
    headers: BilingualList
    no_part: Text
    no_speed: Text
    speed: Text


class Tradeoff(BaseModel):
    """What a buyer weighing this vendor's part against NVIDIA needs first: software, achieved speed, what to benchmark."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    points: tuple[Text, ...] = Field(min_length=1)
    sources: tuple[str, ...] = Field(min_length=1)


class VendorOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    vendors: tuple[Vendor, ...] = Field(min_length=2)
    text: VendorText
    tradeoffs: dict[str, Tradeoff] = Field(default_factory=dict, description="Catalog vendor → what to weigh against NVIDIA.")

    def named_in(self, normalized: str) -> list[Vendor]:
        """The vendors a (case-folded) message names, in the order it names them; a name inside a longer word
        ("dcu" in "dcus" is fine, "mlu" in "plumbing" is not) counts only at word edges for Latin names."""
        found = []
        for vendor in self.vendors:
            at = [_position(normalized, name) for name in vendor.names]
            hits = [a for a in at if a >= 0]
            if hits:
                found.append((min(hits), vendor))
        return [vendor for _, vendor in sorted(found, key=lambda pair: pair[0])]


def _position(text: str, name: str) -> int:
    """Where ``name`` starts in ``text`` as a word of its own (Chinese names anywhere), else -1."""
    start = text.find(name)
    while start >= 0:
        before = text[start - 1] if start else " "
        after = text[start + len(name)] if start + len(name) < len(text) else " "
        if not name.isascii() or (not before.isalnum() and not (after.isascii() and after.isalpha() and after != "s")):
            return start
        start = text.find(name, start + 1)
    return -1


def load_vendor_options(path: Path = DATA_FILE) -> VendorOptions:
    try:
        data = VendorOptions.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: invalid vendor options:\n{exc}") from exc
    known = set(shipped_gpu_ids())
    unknown = sorted({p for v in data.vendors for p in v.china_parts} - known)
    if unknown:
        raise CatalogError(f"{path}: parts the catalog does not have: {unknown}")
    return data


@lru_cache(maxsize=1)
def vendor_options() -> VendorOptions:
    return load_vendor_options()
