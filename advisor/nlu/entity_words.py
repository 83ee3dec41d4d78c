"""The entity lists of ``data/entities.yaml`` and the name patterns built from them: keyword tables
(precision, method, engine, ...), models the catalog does not know, and cards it does not list."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from advisor.name_matcher import matcher_for, normalize_text
from knowledge.catalog import Catalog

ENTITIES_FILE = Path(__file__).parent / "data" / "entities.yaml"
UNWRITTEN_CANONICAL = {"recompute", "lever"}  # a lever's name ("batch", "context") alone is no change made
# "rtx 3080", "RX 7900 GRE", "gtx 1080 ti": a card the catalog does not list keeps its name
OTHER_GPU = re.compile(
    r"(?<![a-z0-9])(?:(?:nvidia|geforce|amd|radeon|intel)\s+)?(?:rtx|gtx|rx|quadro|titan|arc)\s*-?\s*[a-z]?\d{3,4}[a-z]?"
    r"(?:\s*(?:ti|super|xtx|xt|gre|ada|mobile|laptop))*(?![a-z0-9])"
    r"|(?<![a-z0-9.])[1-9]0[5-9]0\s*(?:ti|super)(?:\s*super)?(?![a-z0-9])"  # "2080ti", "4070 super": no prefix, but the suffix says card
    r"|(?<![a-z0-9.])[45]090\s*d(?![a-z0-9])"  # "5090D", "4090D": the China editions, not 5,090 days
    r"|(?:(?<=used\s)|(?<=old\s)|(?<=二手)|(?<=老))(?:[1-9]0[5-9]0|16[56]0)(?![a-z0-9.])"  # "a used 1070": the word says card
    r"|(?<![a-z0-9.])[1-9]0[5-9]0(?=\s*\d{1,2}\s*(?:gb?|g显存)(?![a-z]))"  # "4060 8G": the memory after it says card
    r"|(?<=[张块片])\s*[1-9]0[5-9]0(?:\s*ti)?(?![\d.a-z])"  # "a few 4070s", "two 3080s" with a measure word: it says card
    r"|(?:海光|hygon)\s*(?:dcu\s*)?[a-z]{1,2}\d{2,3}[a-z]?(?![a-z0-9])|(?:寒武纪|cambricon)?\s*mlu\s*-?\d{3}[a-z]?(?:-[a-z]\d)?(?![a-z0-9])"  # Chinese accelerators
    r"|(?:摩尔线程|moore\s*threads)?\s*mtt\s*[sx]\d{3,4}(?![a-z0-9])|(?:昆仑芯?|kunlun)\s*(?:p800|r\d{3}|[23]代)"
    r"|寒武纪|海光|摩尔线程|沐曦|壁仞|燧原|天数智芯|昆仑芯"  # a Chinese accelerator maker said as the card ("would a Cambricon do?")
    r"|(?<![a-z0-9])m[1-5]\s*(?:pro|max|ultra)(?![a-z0-9])"  # an Apple chip the catalog lacks ("M2 Pro")
    r"|(?<![a-z0-9])(?:google\s+)?tpu\s*-?\s*v[2-7][a-z]?(?:\s*-\s*\d{1,4})?(?![a-z0-9])"  # "TPU v4", "tpu v6e-8"
    r"|(?<![a-z0-9])(?:(?:amd|instinct)\s+)*mi\s*-?\s*[1-9]\d{1,2}[xa]?(?=s?(?![a-z0-9]))"  # "MI210s", "mi100"
    r"|(?<![a-z0-9])(?:nvidia\s+|tesla\s+)?(?:a30|p40|p100|k80|m40|a4000|a4500|a5000|a5500|quadro\s+rtx\s*\d{4})(?![a-z0-9])"
    r"|(?<![a-z0-9])(?:nvidia\s+)?(?:b20|b30a|h20e)(?![a-z0-9])"  # China editions the catalog has no sourced figures for
    r"|(?<![a-z0-9])(?:昇腾\s*|ascend\s*)?910\s*b[14](?![a-z0-9])"  # Ascend 910B bins the 910B row does not describe (910B4: 32 GB)
)
# "orin nano", "jetson orin nx 16gb": the smaller Jetson modules, not the AGX Orin the catalog lists
SMALLER_JETSON = re.compile(r"(?<![a-z])(?:jetson\s*)?orin\s*(?:nano|nx)(?:\s*super)?(?:\s*\d{1,2}\s*gb?)?(?![a-z0-9])")
# A rule of thumb written with its figure, not a model size and a memory: as a ratio ("1B params take 2G", "1b params = 2gb",
# "2GB per billion params"), per parameter ("2 bytes per param", "16 bytes each parameter") or as a product ("param count times 16 bytes", "params x 18 bytes")
_BILLION = r"(?<![\d.])(?:1\s*b|10亿|十亿|一十亿|billion)"
_PARAMS = r"(?:个?参数量?|param(?:eter)?s?)"
_BYTE_UNIT = r"(?:个\s*)?(?:gb?|gib|字节|bytes?)(?![a-z])"
_BYTES = rf"\d+(?:\.\d+)?\s*{_BYTE_UNIT}"
_IS = r"(?:占|要|需要|吃|约|大概|就是|≈|=|->|→|is|takes|needs|is\s+about|~)"
_TIMES = r"(?:乘以?|×|\*|x|times)"
CLAIM_RATIO = re.compile(
    rf"(?:每|per\s+|one\s+)?{_BILLION}\s*(?:{_PARAMS}\s*{_IS}?|{_IS})\s*(?:用\s*)?{_BYTES}"
    rf"|(?<![\d.]){_BYTES}\s*(?:per|每|/|一个?)\s*(?:{_BILLION}|b(?![a-z])|{_PARAMS})"
    rf"|每个?{_PARAMS}\s*{_IS}?\s*{_BYTES}"
    rf"|(?:参数量?|参数个数|param(?:eter)?s?(?:\s+count)?)\s*{_TIMES}\s*\d+(?:\.\d+)?\s*(?:个\s*)?(?:字节|bytes?)?(?![a-z\d])"
)
_CLAIMED_FIGURE = re.compile(rf"{_TIMES}\s*(\d+(?:\.\d+)?)|(?<![\d.])(\d+(?:\.\d+)?)\s*{_BYTE_UNIT}")


# A rule of thumb that scales the weights ("1.2x the weights", "1.2 times the weights", "model size * 1.2"): the total memory
# as a multiple of the weights alone; the figure is the multiple (plausible rules say 1–4×)
_WEIGHTS = r"(?:the\s+)?(?:model\s+)?(?:weights?|model\s+size|size\s+of\s+the\s+(?:model|weights)|file\s+size|权重(?:大小|文件)?|模型(?:大小|体积|文件)?)"
_MULTIPLE = r"(?P<{}>[1-4](?:\.\d+)?)(?![\d.])"
CLAIM_WEIGHTS_MULTIPLE = re.compile(
    rf"(?<![\d.]){_MULTIPLE.format('times')}\s*(?:x|×|times)\s*(?:of\s+)?{_WEIGHTS}"
    rf"|(?<![\d.]){_MULTIPLE.format('fold')}\s*倍(?:的)?{_WEIGHTS}"
    rf"|{_WEIGHTS}\s*的\s*{_MULTIPLE.format('of')}\s*倍"
    rf"|{_WEIGHTS}\s*{_TIMES}\s*{_MULTIPLE.format('by')}"
)
WEIGHTS_MULTIPLE_UNIT = "× weights"


def claimed_weights_multiple(match: re.Match) -> str:
    """The claim's value: its multiple with the unit that tells it from bytes per parameter ("1.2× weights")."""
    figure = next(match.group(name) for name in ("times", "fold", "of", "by") if match.group(name))
    return f"{float(figure):g}{WEIGHTS_MULTIPLE_UNIT}"


def weights_multiple(claim: object) -> float | None:
    """The multiple a weights-scaling rule states, or None for any other claim."""
    if isinstance(claim, str) and claim.endswith(WEIGHTS_MULTIPLE_UNIT):
        return float(claim.removesuffix(WEIGHTS_MULTIPLE_UNIT))
    return None


def claimed_bytes_per_parameter(surface: str) -> float | None:
    """The bytes per parameter a quoted rule states ("1B params take 2G": 2, "param count times 16 bytes": 16), if it states them."""
    match = _CLAIMED_FIGURE.search(surface)
    return float(match.group(1) or match.group(2)) if match else None


CARD_NUMBER = re.compile(r"[1-9]0[5-9]0(?:\s*ti)?")


# "r1 distill 32b", "r1 distilled 32b": DeepSeek's distillations, named by the size of the model they were distilled into
R1_DISTILL = re.compile(r"(?:deepseek[\s-]*)?r1[\s-]*(?:distill(?:ed)?|蒸馏(?:版|的)?)[\s-]*(?P<family>qwen|llama)?[\s-]*(?P<size>\d+(?:\.\d+)?)\s*b(?![a-z])")
# "laptop 4060", "the laptop 4070", "rtx 3060 laptop": the form said with the card's number names the laptop part
LAPTOP_NAME = re.compile(
    r"(?<![a-z])(?:laptop|notebook|mobile|笔记本(?:上的|的|版)?)\s*(?:rtx\s*)?(?P<name>\d{4}(?:\s*ti)?)(?![\d])"
    r"|(?<![a-z0-9])(?:(?:nvidia|geforce)\s+)?(?:rtx\s*)?(?P<name_first>\d{4}(?:\s*ti)?)\s*(?:laptop|mobile|笔记本版?|移动版)"
)


def names_written_apart(text: str, catalog: Catalog) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, catalog id) of names the catalog knows, written in pieces it does not list;
    a laptop card it lacks is kept by its name (kind ``other_gpu``)."""
    found = []
    for match in R1_DISTILL.finditer(text):
        family = match.group("family") or ("llama" if match.group("size") in ("8", "70") else "qwen")
        named = matcher_for(catalog).scan(f"r1-distill-{family}-{match.group('size')}b")
        if named and named[0].kind == "model":
            found.append((match.start(), match.end(), "model", named[0].id))
    found.extend((match.start(), match.end(), "other_gpu", match.group()) for match in SMALLER_JETSON.finditer(text))
    for match in LAPTOP_NAME.finditer(text):
        number = match.group("name") or match.group("name_first")
        named = matcher_for(catalog).scan(number + " laptop")
        if named and named[0].kind == "gpu" and "laptop" in named[0].id:  # never the desktop card of that number
            found.append((match.start(), match.end(), "gpu", named[0].id))
        elif CARD_NUMBER.fullmatch(number):  # "laptop 3070": a laptop part the catalog lacks keeps its name
            found.append((match.start(), match.end(), "other_gpu", f"{number} laptop"))
    return found


@lru_cache(maxsize=1)
def raw_entities() -> dict:
    return yaml.safe_load(ENTITIES_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def model_name_pattern() -> re.Pattern[str]:
    """A family word (or any hyphenated name, perhaps with a version) running into a size: 'gemma 2 27b',
    'qwq-32b', 'qwen3-30b-a3b', 'llava-1.6-34b'."""
    families = "|".join(re.escape(f) for f in sorted(raw_entities()["model_family"], key=len, reverse=True))
    size = r"\d+(?:\.\d+)?\s?b(?![a-z])(?:[-_][a-z0-9.]+)*"
    return re.compile(rf"(?<![a-z0-9])(?:(?:{families})[a-z0-9.\-_ :]{{0,16}}?{size}|[a-z]{{2,}}[a-z0-9.]*(?:-v?\d[\d.]*)?-{size})")


@lru_cache(maxsize=1)
def model_version_pattern() -> re.Pattern[str]:
    """A family word with a version but no size ('glm4', 'llama3', 'gpt2-small'), or a model that is no
    language model ('SDXL'): the user named a model, so it is kept even though nothing sizes it yet."""
    raw = raw_entities()
    families = "|".join(re.escape(f) for f in sorted(raw["model_family"], key=len, reverse=True))
    others = "|".join(re.escape(f) for f in sorted(raw["other_model"], key=len, reverse=True))
    version = r"(?:-(?:v|vl|o|coder|math))?[\s-]?v?\d+(?:\.\d+)?(?:[-_](?:small|medium|large|xl|mini|instruct|chat|base|it))*"  # "minicpm-v 2.6"
    return re.compile(rf"(?<![a-z0-9])(?:(?:{families}){version}|{others})(?![a-z0-9])")


@lru_cache(maxsize=1)
def _other_models() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{synonym_pattern(other)})" for other in raw_entities()["other_model"]))


def is_other_model(name: str) -> bool:
    """A model named in ``entities.yaml`` as no language model ("SDXL", "whisper")."""
    return bool(_other_models().fullmatch(normalize_text(name).strip()))


NUMBER_EDGE = r"(?<=[\d.])(?=[^\d.])|(?<=[^\d.])(?=\d)"  # where a synonym's number meets its word


@lru_cache(maxsize=1)
def keyword_tables() -> list[tuple[str, str, re.Pattern[str]]]:
    """(table, canonical value, compiled synonym pattern), longest synonyms first so 'qlora' beats 'lora'."""
    raw = {k: v for k, v in raw_entities().items() if k not in ("model_family", "other_model")}
    rows = []
    for table, values in raw.items():
        for canonical, synonyms in values.items():
            # a canonical name is also a way to write the value, except recomputation's "full" and "none",
            # which alone mean other things ("fine-tune llama 8b full", "none of them")
            for synonym in set(synonyms) if table in UNWRITTEN_CANONICAL else {canonical, *synonyms}:
                rows.append((table, canonical, synonym.lower()))
    # ties of length in one order every run (a set's order changes with the hash seed): fewer separators first, so
    # "pcie edition" claims "PCIe edition" before "pci-e" takes its "pcie", then by spelling
    rows.sort(key=lambda row: (-len(row[2]), sum(char in " -_" for char in row[2]), row[2]))
    return [(table, canonical, re.compile(synonym_pattern(synonym))) for table, canonical, synonym in rows]


def synonym_pattern(synonym: str) -> str:
    # a space may stand where a number meets a word: "4 位" and "4 比特" are "4位" and "4比特", "int 4" is "int4"
    body = r"[\s\-_]*".join(r"\s*".join(re.escape(piece) for piece in re.split(NUMBER_EDGE, part)) for part in re.split(r"[\s\-_]+", synonym))
    # "70bq8": a precision may be glued to the model size before it
    return rf"(?:(?<![a-z0-9])|(?<=\db)){body}(?![a-z0-9])" if synonym.isascii() else body
