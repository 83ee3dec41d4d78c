"""The slot schema (advisor/nlu/data/schema.yaml ``slots:``), one row per slot: every slot has its value kinds, a label in
both languages, what restates it and how it is read; the tagger's role sets, the reader's restatable slots, the frame's
adding values and the plain ``Slots`` properties are built from those rows, so a row added to a copy of the schema is
enough for its slot to be tagged, restated, labelled and read; and every slot the code looks up by name is a row."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from advisor.nlu import frame, model, reader
from advisor.nlu.corpus import load_schema
from advisor.nlu.frame import Frame, SlotValue
from advisor.nlu.slot_schema import LABELS, SCHEMA_FILE, SLOT_SCHEMA, UNUSED_BECAUSE, SlotSchema, slot_label
from advisor.offline.slots import Slots, read_by_schema

ROOT = Path(__file__).resolve().parent.parent


def test_every_slot_has_kinds_and_a_label_in_both_languages():
    assert set(LABELS) == set(SLOT_SCHEMA.rows)
    assert all(en.strip() and zh.strip() for en, zh in LABELS.values())
    # a slot no value kind plays is set by the frame itself: an API price from the amount's unit, the cards per server
    # from a count beside a server count
    assert {slot for slot, row in SLOT_SCHEMA.rows.items() if not row.kinds} == {"api_price", "gpus_per_server"}


def test_training_labels_use_the_labelled_slots_only():
    unlabelled = {slot for slot, row in SLOT_SCHEMA.rows.items() if not row.labelled}
    assert unlabelled == {"other_gpu", "gpu_form", "gpus_per_server"}
    assert set(load_schema().slots) == set(SLOT_SCHEMA.rows) - unlabelled


def test_the_code_tables_are_the_schema_rows():
    assert model.ROLES_BY_KIND == SLOT_SCHEMA.roles_by_kind
    assert model.ROLES_BY_KIND["money"] == model.MONEY_ROLES == {"budget", "server_price", "cloud_price", "electricity_price"}
    assert model.ROLES_BY_KIND["count_gpu"] == {"gpu_count", "tp"}
    assert reader.RESTATABLE_BY_KIND == SLOT_SCHEMA.restated_by
    assert frame.ADDS_TO_SLOT == {"offload", *frame.CONDITIONS}
    assert frame.CONDITIONS == {"china_buyable", "domestic", "datacenter_only"}
    assert frame.implicitly_replaced(["size"]) == {"model"} and frame.implicitly_replaced(["gpu", "other_gpu"]) == set()
    assert all(set(row.replaces) <= set(SLOT_SCHEMA.rows) for row in SLOT_SCHEMA.rows.values())


def test_a_bare_integer_restates_every_integer_slot_and_the_other_restatable_ones_are_named():
    bare = SLOT_SCHEMA.restated_by["number"]
    assert model.INTEGER_ROLES <= bare  # a follow-up's "and 64?" restates a count, a length or a batch
    assert bare - model.INTEGER_ROLES == {"horizon", "gpu_memory", *model.MONEY_ROLES}
    assert SLOT_SCHEMA.restated_by["money"] == model.MONEY_ROLES
    assert SLOT_SCHEMA.restated_by["duration"] == {"deadline", "horizon"}
    kinds = set(SLOT_SCHEMA.roles_by_kind)
    assert {kind for row in SLOT_SCHEMA.rows.values() for kind in row.restated_by} <= kinds


def test_the_unused_value_reasons_are_slots_with_both_languages():
    assert UNUSED_BECAUSE and set(UNUSED_BECAUSE) <= set(LABELS)
    assert all(en and zh for en, zh in UNUSED_BECAUSE.values())


def test_a_row_added_to_a_copy_of_the_schema_is_enough_for_its_slot(tmp_path):
    raw = yaml.safe_load(SCHEMA_FILE.read_text(encoding="utf-8"))
    raw["slots"]["spare_cards"] = {
        "about": "Cards kept idle as spares (a test's slot)",
        "kinds": ["count_gpu", "number"],
        "integer": True,
        "label": {"en": "spare cards", "zh": "备用卡数"},
        "restated_by": ["number"],
        "unused_because": {"en": "no calculation takes spares", "zh": "没有计算用到备用卡"},
        "read_as": "spare_cards",
    }
    copy = tmp_path / "schema.yaml"
    copy.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    schema = SlotSchema.read(copy)
    assert schema.roles_by_kind["count_gpu"] == {"gpu_count", "tp", "spare_cards"}  # the tagger may give a count this role
    assert "spare_cards" in schema.roles_by_kind["number"] and "spare_cards" in schema.integer
    assert "spare_cards" in schema.restated_by["number"] and "spare_cards" in schema.labelled
    assert schema.labels["spare_cards"] == ("spare cards", "备用卡数")
    assert schema.unused_because["spare_cards"][0] == "no calculation takes spares"
    assert schema.training_key() != SLOT_SCHEMA.training_key()  # the models retrain for it

    class Read(Slots):
        pass

    read_by_schema(Read, SlotSchema({"spare_cards": schema.rows["spare_cards"]}))
    slots = Read(Frame({"spare_cards": [SlotValue(2, "two spares")]}))
    assert slots.spare_cards == 2 and slots.used == {"spare_cards"}


def test_a_label_edit_does_not_retrain_the_models():
    raw = SLOT_SCHEMA.rows["context"].model_copy(update={"label": SLOT_SCHEMA.rows["context"].label.model_copy(update={"en": "window"})})
    assert SlotSchema({**SLOT_SCHEMA.rows, "context": raw}, SLOT_SCHEMA.kinds).training_key() == SLOT_SCHEMA.training_key()


def test_slots_reads_each_plain_slot_from_the_schema():
    frame_ = Frame({"gpu": [SlotValue("h100", "H100"), SlotValue("h100", "h100"), SlotValue("a100", "A100")], "tp": [SlotValue(4, "tp=4")]})
    slots = Slots(frame_)
    assert slots.gpus == ["h100", "a100"] and slots.tp == 4 and slots.pp is None
    assert slots.used == {"gpu", "tp"}
    assert slot_label("gpu_count", "zh") == LABELS["gpu_count"][1]


FRAME_LOOKUPS = {"_get", "_all", "_money", "mark", "has", "surface", "get", "all", "pop"}
FRAME_NAMES = ("frame", "state", "slots", "self", "fresh", "before", "entities")  # what a frame or the Slots view is called


def slot_names_in_code(path: Path) -> set[str]:
    """The slot names a module looks up in a frame or the Slots view by a literal: ``frame.get("gpu")``,
    ``self._get("tp")``, ``reading.frame.slots["gpu"]``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FRAME_LOOKUPS:
            if ast.unparse(node.func.value).endswith(FRAME_NAMES):
                arguments = node.args if node.func.attr == "mark" else node.args[:1]
                names |= {a.value for a in arguments if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith(".slots") and isinstance(node.slice, ast.Constant):
            names.add(node.slice.value)
    return names


def test_every_slot_the_code_looks_up_by_name_is_in_the_schema():
    modules = [p for folder in ("advisor/nlu", "advisor/offline") for p in sorted((ROOT / folder).rglob("*.py"))]
    looked_up = {name: path for path in modules for name in slot_names_in_code(path)}
    assert len(looked_up) >= 30  # the check sees the lookups
    unknown = {name: str(path.relative_to(ROOT)) for name, path in looked_up.items() if name not in SLOT_SCHEMA.rows}
    assert not unknown, f"slots looked up in code but missing from schema.yaml: {unknown}"


def test_the_tagger_kind_sets_are_the_value_kind_rows():
    """Which kinds are counts or amounts, and which the words around them decide, are schema.yaml ``value_kinds`` rows."""
    assert model.COUNTED_KINDS == SLOT_SCHEMA.counted_kinds == {"money", "thousands", "count_gpu", "count_server", "users"}
    assert model.CONTEXT_ROLED_KINDS == SLOT_SCHEMA.context_roled_kinds
    assert {"number", "memory", "lever"} <= model.CONTEXT_ROLED_KINDS and "users" not in model.CONTEXT_ROLED_KINDS
    assert set(SLOT_SCHEMA.kinds) <= set(SLOT_SCHEMA.roles_by_kind)  # every row names a kind some slot takes


def test_a_value_kind_row_steers_the_tagger_and_retrains_it(tmp_path):
    raw = yaml.safe_load(SCHEMA_FILE.read_text(encoding="utf-8"))
    raw["value_kinds"]["epochs"] = {"counted": True}
    copy = tmp_path / "schema.yaml"
    copy.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    schema = SlotSchema.read(copy)
    assert "epochs" in schema.counted_kinds and "epochs" not in schema.context_roled_kinds
    assert schema.training_key() != SLOT_SCHEMA.training_key()
    raw["value_kinds"]["no_such_kind"] = {"counted": True}
    copy.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ValueError, match="no_such_kind"):
        SlotSchema.read(copy)


def test_an_unlabelled_slot_is_scored_as_the_slot_a_label_marks():
    """A card the catalog lacks is held apart as other_gpu but a labeller marks it gpu; the cards per server no label
    marks (the count is labelled as the total)."""
    from advisor.nlu import evaluate

    assert SLOT_SCHEMA.scored_as("other_gpu") == "gpu" and SLOT_SCHEMA.scored_as("gpus_per_server") is None
    assert SLOT_SCHEMA.scored_as("gpu_form") == "gpu_form" and SLOT_SCHEMA.scored_as("gpu") == "gpu"
    assert evaluate._playable("other_gpu") == {"gpu"}
    held = Frame({"other_gpu": [SlotValue("mlu590", "MLU590")], "gpus_per_server": [SlotValue(8, "8")], "gpu_count": [SlotValue(16, "16")]})
    assert sorted(evaluate._frame_pairs(held), key=str) == [("gpu", "mlu590"), ("gpu_count", 16)]
