"""Extractors of names: catalog cards and models (however they are written), cards and models the catalog lacks,
and the keywords of the keyword tables (precision, method, ...)."""

from __future__ import annotations

import re

from advisor.name_matcher import matcher_for
from advisor.nlu.count_words import TIMES_AFTER_NAME
from advisor.nlu.entity_words import OTHER_GPU, keyword_tables, model_name_pattern, model_version_pattern, names_written_apart
from advisor.nlu.number_values import Value, number_value
from advisor.nlu.pattern_words import alternatives, pattern
from advisor.nlu.phrases import counted_before, phrase_table
from advisor.nlu.scan import Scan, extractor

PCI_ADDRESS = re.compile(r"(?<![0-9a-f])(?:pci:)?[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-9a-f])?(?![0-9a-f])")
GLUED_DIGITS = re.compile(r"\d{1,4}")
NUMBER_NAME_AND_COUNT = re.compile(
    rf"(?<![\d.a-z])(?P<name>\d{{4}})(?P<n>\d{{1,2}})\s*(?:{alternatives('measure_words')})?\s*(?:{alternatives('card_words')})"
)
NEGATED = pattern("negations", "{}$")
# what may follow a name and still be part of it: 'A100 80GB', '4090 laptop'
NAME_TAIL = pattern("name_tail", r"[\s\-]*{}")


@extractor("pci_addresses")
def pci_addresses(scan: Scan) -> None:
    """ "00000000:3b:00.0" in an nvidia-smi row holds no quantity ("3b" is no model size)."""
    for address in PCI_ADDRESS.finditer(scan.text):
        scan.block(address.start(), address.end())


@extractor("names_written_apart")
def names_apart(scan: Scan) -> None:
    for start, end, kind, identity in names_written_apart(scan.text, scan.catalog):
        scan.claim(Value(start, end, kind, identity, surface=scan.text[start:end]))


@extractor("catalog_names")
def catalog_names(scan: Scan) -> None:
    """Catalog cards and models, with a count glued to a card: "4090x2", "910B 8 cards" written together."""
    text = scan.text
    for name in matcher_for(scan.catalog).scan(text):
        end = _name_end(text, name.end) if name.kind == "gpu" else name.end
        scan.claim(Value(name.start, end, name.kind, name.id, surface=text[name.start : end]))
        times = TIMES_AFTER_NAME.match(text, end) if name.kind == "gpu" else None
        if times:  # "4090x2": the count of that card
            scan.claim(Value(times.start("x"), times.end(), "count_gpu", float(times.group("n")), "", times.group("x")))
        glued = GLUED_DIGITS.match(text, end) if name.kind == "gpu" and text[end - 1 : end].isalpha() else None
        if glued:  # "910B" glued to "8 cards": the digits after a name that ends in a letter are a count
            count = number_value(text, end, glued.end(), glued.group(), float(glued.group()))
            if count is not None and count.kind in ("count_gpu", "count_server"):
                scan.claim(count)


@extractor("number_name_and_count")
def number_name_and_count(scan: Scan) -> None:
    """ "4090" glued to "8 cards": a 4090, then 8 cards."""
    text = scan.text
    for match in NUMBER_NAME_AND_COUNT.finditer(text):
        named = matcher_for(scan.catalog).scan(match.group("name"))
        if named and named[0].kind == "gpu" and named[0].end == len(match.group("name")):
            scan.claim(Value(match.start(), match.end("name"), "gpu", named[0].id, surface=match.group("name")))
            scan.claim(Value(match.start("n"), match.end(), "count_gpu", float(match.group("n")), "", text[match.start("n") : match.end()]))


@extractor("model_names")
def model_names(scan: Scan) -> None:
    """A model the catalog does not know keeps its name."""
    for match in model_name_pattern().finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "model", match.group().strip(), surface=match.group().strip()))


@extractor("model_versions")
def model_versions(scan: Scan) -> None:
    for match in model_version_pattern().finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "model", match.group().strip(), surface=match.group().strip()))


@extractor("other_gpus")
def other_gpus(scan: Scan) -> None:
    """A card the catalog lacks, named so that it is not taken for another."""
    for match in OTHER_GPU.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "other_gpu", match.group().strip(), surface=match.group().strip()))


@extractor("keywords")
def keywords(scan: Scan) -> None:
    """The keyword tables' words (precision, method, ...); "no training" (either language) name no method."""
    text = scan.text
    for table, canonical, pattern in keyword_tables():
        for match in pattern.finditer(text):
            if table == "method" and NEGATED.search(text, max(0, match.start() - 12), match.start()):
                scan.block(match.start(), match.end())
                continue
            if table == "audience" and counted_before(text, match.start()):
                continue  # "60 colleagues" (and its Chinese form): the unit of a headcount, which the numbers extractor reads with it
            if table == "precision" and phrase_table("people_after").at(text, match.end()):
                continue  # "4 engineers" written with the measure word for people: a headcount, read by the numbers extractor
            scan.claim(Value(match.start(), match.end(), table, canonical, surface=match.group()))


def _name_end(text: str, end: int) -> int:
    """A name runs on over a memory variant or form factor the matcher left out: 'A100 80GB', '4090 laptop'."""
    tail = NAME_TAIL.match(text[end:])
    return end + tail.end() if tail else end
