"""The slot schema's per-slot data (advisor/nlu/data/slot_labels.yaml): every slot the schema describes has a label in
both languages; a slot's restatability and its unused-value reason are read from that one row."""

from __future__ import annotations

import yaml

from advisor.nlu.corpus import DATA_DIR
from advisor.nlu.frame import INTEGER_ROLES
from advisor.nlu.slot_labels import LABELS, RESTATABLE, UNUSED_BECAUSE


def test_every_schema_slot_has_a_label_in_both_languages():
    schema = yaml.safe_load((DATA_DIR / "schema.yaml").read_text(encoding="utf-8"))["slots"]
    missing = [slot for slot in schema if slot not in LABELS]
    assert not missing, f"slots without a label in slot_labels.yaml: {missing}"
    assert all(en and zh for en, zh in LABELS.values())


def test_a_bare_integer_restates_every_integer_slot_and_the_other_restatable_ones_are_named():
    assert INTEGER_ROLES <= RESTATABLE  # a follow-up's "and 64?" restates a count, a length or a batch
    assert RESTATABLE - INTEGER_ROLES == {"horizon", "gpu_memory"}


def test_the_unused_value_reasons_are_slots_with_both_languages():
    assert UNUSED_BECAUSE and set(UNUSED_BECAUSE) <= set(LABELS)
    assert all(en and zh for en, zh in UNUSED_BECAUSE.values())
