"""Load the GPU and model catalogs from YAML and look entries up by the names users type."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from knowledge.bilingual import AdvisorError
from knowledge.gpus import GPU, Price
from knowledge.models import ModelSpec
from knowledge.price_overrides import PriceOverrides, Quote, active_overrides, load_pasted_prices

DATA_DIR = Path(__file__).parent
Entry = TypeVar("Entry", GPU, ModelSpec)
Table = TypeVar("Table", bound=BaseModel)
# Longest catalog name/alias is ~50 characters; anything far longer is pasted text, not a name,
# and fuzzy-matching a megabyte of it would take seconds.
MAX_NAME_CHARS = 200


def normalize_name(text: str) -> str:
    """Fold case, width and punctuation so 'A100-80G', 'a100 80GB' and 'Ａ100 80G' compare equal."""
    text = text.casefold().replace("ｇ", "g")
    text = "".join(chr(ord(c) - 0xFEE0) if "！" <= c <= "～" else c for c in text)
    text = re.sub(r"[\s\-_/().,·]+", "", text)
    # Users write memory sizes as "80G" or "80GB" interchangeably; "GB200" has no digit before it.
    return re.sub(r"(?<=\d)gb", "g", text)


VARIANT_PART = re.compile(r"^(?:sxm\d?|pcie|nvl|\d+gb)$")


def variant_family(gpu_id: str) -> str:
    """'a100-80gb-pcie' → 'a100': the id without its form factor and memory size."""
    return "-".join(part for part in gpu_id.split("-") if not VARIANT_PART.match(part))


class CatalogError(RuntimeError):
    """A data file is malformed; the message names the file and the row."""


def read_yaml(path: Path) -> Any:
    """A data file's parsed YAML; a syntax error becomes a ``CatalogError`` naming the file."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path}: not valid YAML: {exc}") from exc


def read_table(path: Path, schema: type[Table], what: str) -> Table:
    """A data file validated as one model; a mistake becomes a ``CatalogError`` naming the file and ``what`` it is."""
    try:
        return schema.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise CatalogError(f"{path}: not a valid {what}: {exc}") from exc


def require_unique(path: Path, ids: list[str], what: str) -> None:
    """Two rows with one id would make a lookup pick either; the error names the file and the repeated ids."""
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise CatalogError(f"{path}: duplicate {what} ids {repeated}")


def load_rows(path: Path, schema: type[Entry]) -> list[Entry]:
    raw = read_yaml(path)
    if not isinstance(raw, list):
        raise CatalogError(f"{path}: expected a list of entries at the top level")
    rows: list[Entry] = []
    for index, item in enumerate(raw, start=1):
        try:
            rows.append(schema.model_validate(item))
        except ValidationError as exc:
            label = item.get("id", "?") if isinstance(item, dict) else "?"
            raise CatalogError(f"{path}: row {index} ({label}) is invalid:\n{exc}") from exc
    ids = [row.id for row in rows]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise CatalogError(f"{path}: duplicate ids {duplicated}")
    return rows


class NameIndex(Generic[Entry]):
    """Exact lookup by id, name or alias after normalisation; close matches as suggestions."""

    def __init__(self, entries: list[Entry], kind_en: str, kind_zh: str):
        self.entries = entries
        self.kind_en, self.kind_zh = kind_en, kind_zh
        self.by_key: dict[str, Entry] = {}
        for entry in entries:
            for key in (entry.id, entry.name, *entry.aliases):
                self.by_key.setdefault(normalize_name(key), entry)

    def find(self, name: str) -> Entry | None:
        if len(name) > MAX_NAME_CHARS:
            return None
        return self.by_key.get(normalize_name(name))

    def get(self, name: str) -> Entry:
        entry = self.find(name)
        if entry is None:
            shown = name if len(name) <= 60 else name[:59] + "…"
            raise AdvisorError(
                f"unknown_{self.kind_en.lower().replace(' ', '_')}",
                f"Unknown {self.kind_en} '{shown}'.",
                f"未找到{self.kind_zh}“{shown}”。",
                self.suggest(name),
            )
        return entry

    def extending(self, name: str) -> list[Entry]:
        """Entries one of whose names starts with ``name``: 'glm4' → GLM-4-9B, 'llama3' → every Llama 3."""
        key = normalize_name(name) if len(name) <= MAX_NAME_CHARS else ""
        return list({id(e): e for k, e in self.by_key.items() if key and k.startswith(key)}.values())

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        key = normalize_name(name) if len(name) <= MAX_NAME_CHARS else ""
        names: list[str] = []
        if key:
            contained = [e.name for k, e in self.by_key.items() if key in k or (len(k) > 2 and k in key)]
            close = difflib.get_close_matches(key, list(self.by_key), n=limit * 2, cutoff=0.5)
            names = contained + [self.by_key[k].name for k in close]
        return list(dict.fromkeys(names))[:limit]


class Catalog:
    """Both catalogs, with lookups that raise a bilingual ``AdvisorError`` and suggest close names."""

    def __init__(self, gpus: list[GPU], models: list[ModelSpec]):
        self.gpus = gpus
        self.models = models
        self._gpu_index = NameIndex(gpus, "GPU", "GPU型号")
        self._model_index = NameIndex(models, "model", "模型")

    def gpu(self, name: str) -> GPU:
        return self._gpu_index.get(name)

    def model(self, name: str) -> ModelSpec:
        return self._model_index.get(name)

    def find_gpu(self, name: str) -> GPU | None:
        return self._gpu_index.find(name)

    def family(self, key: str) -> list[GPU]:
        """The cards whose id starts with the family word ``key``: 'ascend' → Ascend 910B, 910C; 'mi' → AMD Instinct."""
        return [g for g in self.gpus if re.match(rf"{re.escape(key)}(?![a-z])", g.id)]

    def gpu_variant(self, gpu_id: str, form: str | None = None, memory_gb: float | None = None) -> GPU | None:
        """The sibling of ``gpu_id`` in another form factor or memory size: A100 80GB PCIe → 'sxm' → A100 80GB SXM."""
        current = self._gpu_index.find(gpu_id)
        if current is None or not (form or memory_gb) or (memory_gb and abs(current.memory_gb - memory_gb) < 1 and not form):
            return None
        family = variant_family(current.id)
        siblings = [g for g in self.gpus if variant_family(g.id) == family and g.id != current.id]
        if form:
            siblings = [g for g in siblings if form in g.id.split("-")]
        if memory_gb:
            siblings = [g for g in siblings if abs(g.memory_gb - memory_gb) < 1]
        parts = set(current.id.split("-"))
        return max(siblings, key=lambda g: len(set(g.id.split("-")) & parts), default=None)  # keep what was not asked to change

    def find_model(self, name: str) -> ModelSpec | None:
        return self._model_index.find(name)

    def models_extending(self, name: str) -> list[ModelSpec]:
        return self._model_index.extending(name)

    def newest_of_family(self, family: str, params_b: float) -> ModelSpec | None:
        """"llama 8b": the family's last-listed model of that size (rows are listed oldest first within a family)."""
        word = normalize_name(family)
        same = _of_size([m for m in self.models if normalize_name(m.family) == word], params_b)
        named = [m for m in same if normalize_name(m.name).startswith(word)]  # "qwen 32b" is a Qwen, not QwQ of that family
        return (named or same)[-1] if same else None

    def model_of_name_and_size(self, name: str, params_b: float) -> ModelSpec | None:
        """A model named in one place and sized in another ("a 70B model (llama 3.3)", "qwen 2.5, the 72b one", "qwen2.5 at 72b"):
        the catalog model called by the name and the size together, else the newest model whose name starts with the
        name and has that size, else the family's (``newest_of_family``); trailing words of the name are dropped one by
        one ("qwen2.5 at" → "qwen2.5"). None when nothing of that size goes by the name."""
        words = name.split()
        while words:
            said = " ".join(words)
            exact = self.find_model(f"{said} {params_b:g}b")
            if exact is not None:
                return exact
            listed = {id(m): i for i, m in enumerate(self.models)}
            extending = sorted(self.models_extending(said), key=lambda m: listed.get(id(m), 0))
            found = _of_size(extending, params_b) or ([self.newest_of_family(said, params_b)] if self.newest_of_family(said, params_b) else [])
            if found:
                return found[-1]
            words.pop()
        return None


def _of_size(models: list[ModelSpec], params_b: float) -> list[ModelSpec]:
    """The models of that size: the size as marketed in the name ("Qwen3-14B" holds 14.8B), else by their count within 10 %."""
    marketed = [m for m in models if re.search(rf"(?<![\d.a-z]){params_b:g}b(?![a-z])", m.name.lower())]
    return marketed or [m for m in models if abs(m.params_b - params_b) <= 0.1 * params_b]


@lru_cache(maxsize=1)
def _shipped_gpus() -> NameIndex[GPU]:
    return NameIndex(load_rows(DATA_DIR / "gpus.yaml", GPU), "GPU", "GPU型号")


def catalog_gpu_id(name: str) -> str | None:
    """The catalog id of a GPU id, name or alias, or None."""
    gpu = _shipped_gpus().find(str(name))
    return gpu.id if gpu else None


def shipped_gpus() -> list[GPU]:
    """The GPU catalog as shipped (no company prices): what data files derived from it read."""
    return list(_shipped_gpus().entries)


def shipped_gpu_ids() -> list[str]:
    return list(_shipped_gpu_id_tuple())


@lru_cache(maxsize=1)
def _shipped_gpu_id_tuple() -> tuple[str, ...]:
    return tuple(g.id for g in _shipped_gpus().entries)


def company_prices() -> PriceOverrides | None:
    """The prices in force: the validated ``ADVISOR_PRICES`` file (None when unset; a bad file raises its bilingual
    error), with a web session's pasted prices on top. Asked on every tool call, so it builds nothing."""
    return active_overrides(catalog_gpu_id, _shipped_gpu_id_tuple())


@lru_cache(maxsize=16)  # the same text gives the same object, so a session's answers reuse its priced catalog
def pasted_prices(text: str) -> PriceOverrides | None:
    """Prices pasted in the web UI's settings, validated as a prices file is; None when empty. A mistake raises
    the bilingual error naming the line."""
    return load_pasted_prices(text, catalog_gpu_id, shipped_gpu_ids()) if text.strip() else None


def with_company_gpu_prices(gpus: list[GPU], overrides: PriceOverrides | None) -> list[GPU]:
    """The GPUs with the company's purchase and cloud prices in place of the catalog's."""
    if overrides is None or not overrides.gpus:
        return gpus

    def price(quote: Quote | None, kept: Price | None, note: str) -> Price | None:
        if quote is None:
            return kept
        return Price(amount=quote.amount, currency=quote.currency, date=quote.date, note=note, source=quote.source,
                     overridden_by=overrides.label)  # fmt: skip

    priced = []
    for gpu in gpus:
        quotes = overrides.gpus.get(gpu.id)
        if quotes is not None:
            gpu = gpu.model_copy(update={
                "purchase_price": price(quotes.purchase, gpu.purchase_price, "company purchase price"),
                "cloud_price": price(quotes.cloud, gpu.cloud_price, "company cloud price"),
            })  # fmt: skip
        priced.append(gpu)
    return priced


def load_catalog() -> Catalog:
    """The shipped catalogs with the prices in force applied (the company's file, and a web session's pasted prices)."""
    return priced_catalog(company_prices())


@lru_cache(maxsize=1)
def _shipped_models() -> list[ModelSpec]:
    return load_rows(DATA_DIR / "models.yaml", ModelSpec)


@lru_cache(maxsize=16)  # one per set of prices in force: the file's, and each pasting browser session's lately used
def priced_catalog(overrides: PriceOverrides | None) -> Catalog:
    """The catalogs with ``overrides`` applied, built once per set of overrides."""
    return Catalog(with_company_gpu_prices(list(_shipped_gpus().entries), overrides), _shipped_models())

