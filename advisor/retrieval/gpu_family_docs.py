"""One searchable doc per GPU family, written from the catalog so spec questions retrieve facts.

Each family doc has an overview section and one section per GPU, in English and Chinese, with
every figure taken from `knowledge/gpus.yaml`; the row's spec and price sources travel with the
section as its `sources` (kept out of the text, where they would only add noise to matching).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from advisor.retrieval.documents import Chunk, Language, source_links
from knowledge.catalog import Catalog
from knowledge.gpus import GPU, Price
from knowledge.wording import Wording

TEXT = Wording(Path(__file__).with_name("gpu_family_text.yaml"))
WEB = ("http://", "https://")


@dataclass(frozen=True)
class Family:
    """A family doc: its slug (its wording is ``families.<slug>`` of gpu_family_text.yaml) and which GPUs it holds."""

    slug: str
    includes: Callable[[GPU], bool]

    @property
    def doc_id(self) -> str:
        return f"gpu-{self.slug}"

    @property
    def title_en(self) -> str:
        return TEXT.entry(f"families.{self.slug}.title.en")

    @property
    def title_zh(self) -> str:
        return TEXT.entry(f"families.{self.slug}.title.zh")

    def about(self, language: Language) -> str:
        return TEXT.entry(f"families.{self.slug}.about.{language}")


def _nvidia_pro(keyword: str) -> Callable[[GPU], bool]:
    """NVIDIA data-center and workstation parts of one architecture (GeForce has its own doc)."""
    return lambda g: g.vendor == "NVIDIA" and g.segment != "consumer" and keyword in g.architecture.lower()


FAMILIES: tuple[Family, ...] = (
    Family("nvidia-blackwell", _nvidia_pro("blackwell")),
    Family("nvidia-hopper", _nvidia_pro("hopper")),
    Family("nvidia-ampere", _nvidia_pro("ampere")),
    Family("nvidia-ada", _nvidia_pro("ada")),
    Family("nvidia-volta-turing", lambda g: g.vendor == "NVIDIA" and g.segment != "consumer"
           and any(k in g.architecture.lower() for k in ("volta", "turing"))),
    Family("geforce", lambda g: g.vendor == "NVIDIA" and g.segment == "consumer"),
    Family("amd-instinct", lambda g: g.vendor == "AMD"),
    Family("intel-gaudi", lambda g: g.vendor == "Intel"),
    Family("huawei-ascend", lambda g: g.vendor == "Huawei"),
    Family("cambricon-mlu", lambda g: g.vendor == "Cambricon"),
    Family("moore-threads-mtt", lambda g: g.vendor == "Moore Threads"),
    Family("google-tpu", lambda g: g.vendor == "Google"),
    Family("aws-trainium", lambda g: g.vendor == "AWS"),
    Family("apple-silicon", lambda g: g.vendor == "Apple"),
)
FAMILY_IDS = tuple(f.doc_id for f in FAMILIES)

def family_of(gpu: GPU) -> Family:
    for family in FAMILIES:
        if family.includes(gpu):
            return family
    raise ValueError(f"GPU {gpu.id} ({gpu.vendor} {gpu.architecture}) matches no GPU family; add one to FAMILIES")


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _price(price: Price, per: str, language: Language) -> str:
    note = TEXT.pick("price_note", language, note=price.note) if price.note else ""
    currency = TEXT.pick(f"currency.{price.currency}", language)
    return TEXT.pick("price", language, amount=_num(price.amount), currency=currency, per=TEXT.pick(per, language), note=note, date=price.date)


def gpu_sentences(g: GPU, language: Language) -> str:
    """What the catalog says of one GPU, one sentence a field, in ``language``."""

    def say(key: str, **values: object) -> str:
        return TEXT.pick(f"sentences.{key}", language, **values)

    parts = [
        say("intro", name=g.name, segment=TEXT.pick(f"segment.{g.segment}", language), vendor=g.vendor, architecture=g.architecture, year=g.launch_year),
        say("memory", memory=_num(g.memory_gb), memory_type=g.memory_type, bandwidth=_num(g.bandwidth_gbs)),
        say("bf16", tflops=_num(g.bf16_tflops)) if g.bf16_tflops else say("bf16_missing"),
        say("fp8", tflops=_num(g.fp8_tflops)) if g.fp8_tflops else say("fp8_missing"),
        say("fp32", tflops=_num(g.fp32_tflops)) if g.fp32_tflops else "",
        say("tdp", watts=_num(g.tdp_w)) if g.tdp_w else say("tdp_missing"),
        say("interconnect", interconnect=g.interconnect),
        say("link", bandwidth=_num(g.nvlink_gbs)) if g.nvlink_gbs else say("link_missing"),
        say("pcie", gen=g.pcie_gen) if g.pcie_gen else "",
        say("form_factor", form=g.form_factor),
        say("inference_only") if g.inference_only else "",
        TEXT.pick(f"china.{g.china}", language),
        g.availability_zh if language == "zh" else g.availability_en,
        say("purchase", price=_price(g.purchase_price, "per_unit", language)) if g.purchase_price else "",
        say("cloud", price=_price(g.cloud_price, "per_gpu_hour", language)) if g.cloud_price else "",
        say("aliases", aliases=TEXT.pick("alias_separator", language).join(g.aliases)) if g.aliases else "",
    ]
    return TEXT.pick("sentence_separator", language).join(p for p in parts if p)


def _row_sources(g: GPU) -> tuple[list[str], list[str]]:
    """The spec row's pages to open (its dated spec pages, then any URL its note names) and, where the row says why
    some source has no page, that reason; the bare note only when the row gives neither."""
    pages = [page.url for page in g.spec_sources] + [u for u in source_links(g.source) if u.startswith(WEB)]
    reasons = [g.no_url_because] if g.no_url_because else [] if pages else source_links(g.source)
    return pages, reasons


def _price_sources(p: Price) -> tuple[list[str], list[str]]:
    """A price's page to open, or the reason it has none (the bare note for a price that gives neither, e.g. a company's own)."""
    if p.source_url:
        return [p.source_url], []
    pages = [u for u in source_links(p.source) if u.startswith(WEB)]
    return pages, [p.no_url_because] if p.no_url_because else [] if pages else source_links(p.source)


def _gpu_sources(g: GPU) -> tuple[str, ...]:
    """What a section cites: every page a reader can open first (so the answer links the spec page), then the stated
    reasons for the sources that have none."""
    parts = [_row_sources(g)] + [_price_sources(p) for p in (g.purchase_price, g.cloud_price) if p]
    return tuple(dict.fromkeys([u for pages, _ in parts for u in pages] + [r for _, reasons in parts for r in reasons]))


def _overview(family: Family, gpus: list[GPU], language: Language) -> str:
    members = TEXT.pick("member_separator", language).join(
        TEXT.pick("overview_member", language, name=g.name, memory=_num(g.memory_gb), memory_type=g.memory_type, year=g.launch_year) for g in gpus
    )
    return TEXT.pick("overview", language, about=family.about(language), count=len(gpus), members=members)


def gpu_family_chunks(catalog: Catalog) -> list[Chunk]:
    """Chunks of every family doc that has at least one catalog GPU, in both languages."""
    members: dict[str, list[GPU]] = {}
    for gpu in catalog.gpus:
        members.setdefault(family_of(gpu).slug, []).append(gpu)
    chunks: list[Chunk] = []
    for family in FAMILIES:
        gpus = members.get(family.slug)
        if not gpus:
            continue
        family_sources = tuple(dict.fromkeys(s for g in gpus for s in _gpu_sources(g)))
        for language in ("en", "zh"):
            common = dict(doc_id=family.doc_id, language=language, title_en=family.title_en, title_zh=family.title_zh)
            heading = TEXT.pick("overview_heading", language)
            chunks.append(Chunk(**common, position=0, section=heading, text=_overview(family, gpus, language),
                                sources=family_sources, tags=("gpu", "specs")))
            for position, gpu in enumerate(gpus, start=1):
                chunks.append(Chunk(**common, position=position, section=gpu.name, text=gpu_sentences(gpu, language),
                                    sources=_gpu_sources(gpu), tags=("gpu", "specs", gpu.id)))
    return chunks
