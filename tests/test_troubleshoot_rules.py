"""The troubleshooting rule book: shipped data is complete and valid; bad data fails loudly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowledge.catalog import CatalogError
from knowledge.troubleshooting import FAMILIES, RULES_DIR
from tests.guidance_ids import GUIDANCE_IDS
from tools.troubleshoot.parsers import PARSERS
from tools.troubleshoot.rulebook import Condition, load_rulebook, read_rulebook

XID_CATALOG = RULES_DIR / "xid-catalog.json"


def test_shipped_rulebook_loads_once_with_every_family():
    book = load_rulebook()
    assert load_rulebook() is book  # cached: compiled once per process
    assert set(book.sources) == set(FAMILIES)
    assert {rule.family for rule in book.rules} == set(FAMILIES)
    assert all(len(source) > 20 for source in book.sources.values())


def test_every_xid_in_nvidia_catalog_has_a_rule():
    catalog = json.loads(XID_CATALOG.read_text(encoding="utf-8"))
    book = load_rulebook()
    rules_by_code = {}
    for rule in book.rules:
        if rule.family == "xid":
            (condition,) = rule.conditions
            rules_by_code[int(condition.number)] = rule
    for entry in catalog["entries"]:
        rule = rules_by_code.get(entry["xid"])
        assert rule is not None, f"Xid {entry['xid']} has no rule"
        assert rule.id == f"xid-{entry['xid']}"
        assert rule.meta["mnemonic"] == entry["mnemonic"]
        assert rule.meta["nvidia_immediate_action"] == (entry["immediate_action"] or "none listed")
        assert rule.title.en.startswith(f"Xid {entry['xid']}:") and rule.title.zh.startswith(f"Xid {entry['xid']}：")
    assert 61 in rules_by_code  # not in the Ampere+ catalog, still seen on older GPUs


def test_repo_copy_of_xid_catalog_matches_the_shared_reference_when_present():
    shared = Path(__file__).resolve().parents[2] / "shared" / "reference" / "xid-catalog.json"  # ../shared beside the repo
    if not shared.exists():
        pytest.skip("shared reference folder not mounted")
    assert json.loads(shared.read_text()) == json.loads(XID_CATALOG.read_text())


def test_every_rule_is_bilingual_actionable_and_links_known_docs():
    for rule in load_rulebook().rules:
        assert rule.title.en and rule.title.zh, rule.id
        assert all(c.en and c.zh for c in rule.causes), rule.id
        assert all(a.en and a.zh for a in rule.actions), rule.id
        assert set(rule.docs) <= set(GUIDANCE_IDS), (rule.id, rule.docs)


def test_parsers_named_by_rules_exist_and_every_parser_is_used():
    book = load_rulebook()
    assert set(book.parsers()) == set(PARSERS)


@pytest.mark.parametrize(
    ("source", "kind", "values", "expected"),
    [
        ("xid == 79", "dmesg", {"xid": 79.0}, True),
        ("xid == 79", "dmesg", {"xid": 48.0}, False),
        ("kind == 'device_oom'", "device_oom", {}, True),
        ("kind == 'device_oom'", "host_oom", {}, False),
        ("reserved_unallocated_mib >= 1.0 * requested_mib", "x", {"reserved_unallocated_mib": 4208.0, "requested_mib": 3225.0}, True),
        ("reserved_unallocated_mib >= 1.0 * requested_mib", "x", {"reserved_unallocated_mib": 400.0, "requested_mib": 2007.0}, False),
        ("power_draw_w <= 0.5 * power_cap_w", "x", {"power_draw_w": 88.0, "power_cap_w": 400.0}, True),
        ("reserved_unallocated_mib >= requested_mib", "x", {"requested_mib": 10.0}, False),  # missing field never fires
        ("gpu_util_percent < 70", "x", {"gpu_util_percent": "n/a"}, False),  # wrong type never fires
    ],
)
def test_conditions(source, kind, values, expected):
    assert Condition.parse(source).holds(kind, values) is expected


def _copy_rules(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(RULES_DIR, target)
    return target


def _break(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        ("oom.yaml", 'weight: 0.93', 'weight: 1.5', "oom-fragmentation"),
        ("oom.yaml", '"reserved_unallocated_mib >= 1.0 * requested_mib"', '"reserved_unalocated_mib >= 1.0 * requested_mib"', "no field"),
        ("oom.yaml", "\"kind == 'host_oom'\"", "\"kind == 'host_ram'\"", "no kind"),
        ("nccl.yaml", "parser: nccl\n    when: [\"kind == 'watchdog_timeout'\"]", "parser: ncc\n    when: [\"kind == 'watchdog_timeout'\"]", "unknown parser"),
        ("hardware.yaml", '"row remappings are pending"', '"row remappings (are pending"', "not a valid regex"),
        ("thermal.yaml", "when: [\"hw_thermal_slowdown == 1\"]", "when: [\"hw_thermal_slowdown =~ 1\"]", "thermal-hw-slowdown"),
        ("utilization.yaml", "family: utilization", "family: thermal", "must match the file name"),
        ("xid.yaml", "id: xid-13\n", "id: xid-8\n", "duplicate rule ids"),
        ("oom.yaml", "rules:\n", "rules:\n  - {id: broken\n", "not a valid rule file"),
    ],
)
def test_bad_rule_files_fail_loudly_naming_file_and_rule(tmp_path, file, old, new, message):
    directory = _copy_rules(tmp_path)
    _break(directory / file, old, new)
    with pytest.raises(CatalogError) as caught:
        read_rulebook(directory)
    text = str(caught.value)
    assert message in text
    if "duplicate" not in message:
        assert file in text


def test_a_rule_that_can_never_match_is_rejected(tmp_path):
    directory = _copy_rules(tmp_path)
    with (directory / "oom.yaml").open("a", encoding="utf-8") as file:
        file.write(
            "  - id: silent-rule\n    title: {en: t, zh: t}\n    weight: 0.5\n"
            "    causes: [{en: c, zh: c}]\n    actions: [{en: a, zh: a}]\n"
        )
    with pytest.raises(CatalogError, match=r"(?s)oom.yaml.*silent-rule.*ever match"):
        read_rulebook(directory)
