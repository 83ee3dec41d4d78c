"""Extractors of rules of thumb and multiples the user states: "weights × 1.2", "16 bytes per parameter", "30x an H100"."""

from __future__ import annotations

from advisor.nlu.entity_words import CLAIM_RATIO, CLAIM_WEIGHTS_MULTIPLE, claimed_bytes_per_parameter, claimed_weights_multiple
from advisor.nlu.number_values import Value
from advisor.nlu.phrases import phrase_table
from advisor.nlu.scan import Scan, extractor


@extractor("weights_multiple_claims")
def weights_multiple_claims(scan: Scan) -> None:
    for match in CLAIM_WEIGHTS_MULTIPLE.finditer(scan.text):
        scan.claim(Value(match.start(), match.end(), "claim", claimed_weights_multiple(match), "× weights", match.group()))


@extractor("bytes_per_parameter_claims")
def bytes_per_parameter_claims(scan: Scan) -> None:
    for match in CLAIM_RATIO.finditer(scan.text):
        claimed = claimed_bytes_per_parameter(match.group()) or "rule_of_thumb"
        scan.claim(Value(match.start(), match.end(), "claim", claimed, "bytes/param", match.group()))


@extractor("multiples")
def multiples(scan: Scan) -> None:
    """ "30x an H100", "2.5x faster", "3 times the A100": a multiple of another figure (a ratio), never a count of cards."""
    for match in phrase_table("multiples").find_all(scan.text):
        scan.claim(Value(match.number_start, match.end, "ratio", float(match.number), "×", scan.text[match.number_start : match.end]))
