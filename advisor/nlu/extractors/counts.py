"""Extractors of counts and run settings: parallel degrees, context and batch settings, MFU and PUE, cards per
node and servers of cards, epochs, and every other number with what its unit or its neighbours make of it."""

from __future__ import annotations

import re
from dataclasses import replace

from advisor.nlu.count_words import (
    BATCH,
    CONTEXT_SETTING,
    EPOCHS,
    GPUS_PER_NODE,
    MFU,
    NODES_OF_GPUS,
    OTHER_SETTING,
    PARALLEL,
    PUE,
    SERVERS_OF_NAMED_CARDS,
    TIMES_COUNT,
    WORD_NUMBERS,
)
from advisor.nlu.number_values import Value, number_value
from advisor.nlu.pattern_words import pattern, pattern_words
from advisor.nlu.phrases import phrase_table
from advisor.nlu.scan import Scan, extractor
from advisor.nlu.vague_counts import vague_counts as said_vaguely
from tools.quantities import find_numbers, parse_number

# "two used 3090s", "3 refurbished a100s": a word on the card's condition between a count and the card
BEFORE_CARD = pattern("card_condition", r"\s*(?:{}\s+)?")
ENDS_MESSAGE = re.compile(r"[\s?？!！.。" + "".join(pattern_words("message_end_particles")) + "]*$")
# "two 24GB cards", "three 48 GB GPUs": a memory size standing for the card; the count before it counts cards
CARD_AFTER_MEMORY = pattern("memory_card_nouns", r"[\s-]*{}(?![a-z])")
PARALLEL_WORD_KIND = pattern_words("parallel_word_kind")  # the first letter of the word


@extractor("parallel_degrees")
def parallel_degrees(scan: Scan) -> None:
    """ "tp=4", "pipeline parallel 2", "tensor parallel 8" in Chinese."""
    for match in PARALLEL.finditer(scan.text):
        kind = match.group("kind") or PARALLEL_WORD_KIND[match.group("word")[0]]
        scan.claim(Value(match.start(), match.end(), kind, float(match.group("n") or match.group("wn")), kind, match.group()))


@extractor("context_settings")
def context_settings(scan: Scan) -> None:
    """ "max-model-len is set to 32768": a length, whatever its size."""
    for match in CONTEXT_SETTING.finditer(scan.text):
        scale = 1024 if match.group("k") else 1
        surface = scan.text[match.start("n") : match.end()]
        scan.claim(Value(match.start("n"), match.end(), "context_setting", float(match.group("n")) * scale, "tokens", surface))


@extractor("batch_sizes")
def batch_sizes(scan: Scan) -> None:
    for match in BATCH.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "batch", float(match.group("n")), "", match.group()))


@extractor("mfu")
def mfu(scan: Scan) -> None:
    """ "40% MFU", "mfu of 0.35": kept in percent."""
    for match in MFU.finditer(scan.text):
        share = float(match.group("fraction")) * 100 if match.group("fraction") else float(match.group("pct") or match.group("pct_after"))
        scan.claim(Value(match.start(), match.end(), "mfu", share, "%", match.group()))


@extractor("pue")
def pue(scan: Scan) -> None:
    for match in PUE.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "pue", float(match.group("n")), "", match.group()))


@extractor("gpus_per_node")
def gpus_per_node(scan: Scan) -> None:
    """ "8 per node": the cards in each server."""
    for match in GPUS_PER_NODE.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "count_gpu", float(match.group("n")), "", match.group()))


@extractor("cards_in_words")
def cards_in_words(scan: Scan) -> None:
    """ "4 nodes of 8", "8 of them": a bare number the words around it make a count of cards; "4 of these servers" one of
    servers (phrase tables)."""
    for match in (*phrase_table("cards_after_servers").find_all(scan.text), *phrase_table("digits_of_them").find_all(scan.text)):
        scan.claim(Value(match.number_start, match.number_end, "count_gpu", float(match.number), "", match.number))
    for match in phrase_table("servers_of_them").find_all(scan.text):  # "4 of these servers": servers, not cards
        scan.claim(Value(match.number_start, match.end, "count_server", float(match.number), "", scan.text[match.number_start : match.end]))


@extractor("nodes_of_gpus")
def nodes_of_gpus(scan: Scan) -> None:
    """ "two 8-GPU nodes", "4 x 8-card servers": the cards of all the servers."""
    for match in NODES_OF_GPUS.finditer(scan.text):
        servers = WORD_NUMBERS.get(match.group("servers")) or float(match.group("servers"))
        scan.claim(Value(match.start(), match.end(), "count_gpu", float(servers) * float(match.group("per")), "", match.group()))


@extractor("servers_of_named_cards")
def servers_of_named_cards(scan: Scan) -> None:
    """ "two 8-GPU L40S servers", "4 B200 servers": servers; without the cards per server the words between must be one card's
    name ("4 H100 in our servers" counts cards)."""
    for match in SERVERS_OF_NAMED_CARDS.finditer(scan.text):
        if match.group("per") is None and match.group("times") is None and not _names_the_card(scan, match.start("name"), match.start("noun")):
            continue
        servers = match.group("servers")
        if match.group("times") is not None:  # "4x8 H100 nodes": the 8 is each server's cards
            scan.claim(Value(match.start("times"), match.end("times"), "count_gpu", float(match.group("times")), "", match.group("times")))
        scan.claim(Value(match.start(), match.end(), "count_server", float(WORD_NUMBERS.get(servers) or servers), "", servers))


def _names_the_card(scan: Scan, start: int, end: int) -> bool:
    """A card found by an earlier extractor spans exactly ``start``..``end`` (spaces aside)."""
    return any(v.kind == "gpu" and v.start == start and not scan.text[v.end : end].strip() for v in scan.found)


@extractor("epochs")
def epochs(scan: Scan) -> None:
    for match in EPOCHS.finditer(scan.text):
        passes = match.group("n") or match.group("setting")
        scan.claim(Value(match.start(), match.end(), "epochs", float(WORD_NUMBERS.get(passes) or parse_number(passes)), "", match.group()))


@extractor("other_settings")
def other_settings(scan: Scan) -> None:
    """ "num_workers=8": a setting the advisor has no slot for; its number is nobody's batch or count. Only the number is
    blocked: the words before it may still say a change was made ("raised num_workers to 8" pulls a lever)."""
    for match in OTHER_SETTING.finditer(scan.text):
        scan.block(match.start(1), match.end())


@extractor("times_count")
def times_count(scan: Scan) -> None:
    """ "x8", "×4": a count of cards; but a number with a unit of its own after the sign is the other factor of a product
    ("batch 16 × 8192 tokens" is a sequence length), left to the numbers extractor to read by that unit."""
    for match in TIMES_COUNT.finditer(scan.text):
        own = number_value(scan.text, match.start(1), match.end(1), match.group(1), float(match.group(1)))
        if own is not None and own.kind not in ("number", "count_gpu"):
            continue
        scan.claim(Value(match.start(), match.end(), "count_gpu", float(match.group(1)), "", match.group()))


@extractor("numbers")
def numbers(scan: Scan) -> None:
    """Every other number, read from its unit or the words around it (``number_values.number_value``)."""
    text, gpu_starts = scan.text, scan.gpu_starts()
    for number in find_numbers(text):
        value = number_value(text, number.start, number.end, number.text, number.value)
        if (
            value is not None
            and value.kind == "number"
            and value.value.is_integer()
            and 1 <= value.value <= 1024
            and BEFORE_CARD.match(text, value.end).end() in gpu_starts
        ):
            value = replace(value, kind="count_gpu")  # "16 H100s total": a count of the card named right after it
        if value is not None and value.kind == "users":
            value = _before_group_word(scan, value)
        if value is not None:
            scan.claim(value)


def _before_group_word(scan: Scan, value: Value) -> Value:
    """"30 colleagues" (and its Chinese form): the group word after the count was claimed as the audience (a team service); the count
    keeps the span up to it, and its surface the whole phrase, so it is read as the headcount of that group."""
    group = next((v for v in scan.found if v.kind == "audience" and value.start < v.start < value.end), None)
    return value if group is None else replace(value, end=group.start)


def _memory_card_at(scan: Scan, start: int) -> bool:
    """A memory size starts at ``start`` and a card noun follows it: "24GB cards" is a card, counted by the word before."""
    return any(v.kind == "memory" and v.start == start and CARD_AFTER_MEMORY.match(scan.text, v.end) for v in scan.found)


@extractor("word_numbers")
def word_numbers(scan: Scan) -> None:
    """Counts written as words: "two l40s", "buy two", "two of them", "and with four?"."""
    text, gpu_starts = scan.text, scan.gpu_starts()
    for word, count in WORD_NUMBERS.items():
        for match in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])" if word.isascii() else re.escape(word), text):
            value = number_value(text, match.start(), match.end(), word, float(count), words_only=True)
            gap = BEFORE_CARD.match(text, match.end()).end()
            cards = gap in gpu_starts or _memory_card_at(scan, gap) or (
                count > 1 and (phrase_table("buy_before").ending_at(text, match.start()) or phrase_table("of_them").at(text, match.end()))
            )
            if value is None and cards:
                value = Value(match.start(), match.end(), "count_gpu", float(count), "", word)
            elif value is None and count > 1 and word.isalpha() and ENDS_MESSAGE.match(text, match.end()):
                value = Value(match.start(), match.end(), "number", float(count), "", word)
            if value is not None:
                scan.claim(value)


@extractor("counted_links")
def counted_links(scan: Scan) -> None:
    """ "8 x 400G NICs", "8×400G NDR", "2x 200Gbps" (the Chinese forms alike): a count of network links and their line rate; the count is no card's."""
    text = scan.text
    for match in phrase_table("counted_links").find_all(text):
        if len(match.numbers) < 2:  # the table's templates name the count and then the rate
            continue
        rate_start, _, rate = match.numbers[1]
        scan.claim(Value(match.number_start, match.number_end, "link_count", float(match.number), "", match.number))
        scan.claim(Value(rate_start, match.end, "link_speed", float(rate), "Gb/s", text[rate_start : match.end]))


@extractor("vague_counts")
def vague_counts(scan: Scan) -> None:
    """ "dozens of users", "a few hundred people", the Chinese "some tens of concurrent": a count said as an order of
    magnitude is its planning value (data/vague_counts.yaml), read from the words after it like any count, so no digit
    inside the words (the Chinese "ten") is taken for the count."""
    text = scan.text
    for said in said_vaguely(text):
        value = number_value(text, said.start, said.end, said.surface, float(said.plan), words_only=True)
        scan.claim(value if value is not None else Value(said.start, said.end, "number", float(said.plan), "", said.surface))
