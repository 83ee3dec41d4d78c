"""Extractors of rules of thumb the user states: "weights × 1.2", "16 bytes per parameter"."""

from __future__ import annotations

from advisor.nlu.entity_words import CLAIM_RATIO, CLAIM_WEIGHTS_MULTIPLE, claimed_bytes_per_parameter, claimed_weights_multiple
from advisor.nlu.number_values import Value
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
