"""MIG, INT8 and 2:4 sparsity are catalog data with dated sources, and the capability tool gives a yes, a no or an
'not in my sources' from them (never a 'no' for a figure nobody published)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from knowledge.catalog import load_catalog
from knowledge.gpus import GPU
from tools.capability import CapabilityRequest, check_capability


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.mark.parametrize(
    ("gpu", "capability", "verdict", "value"),
    [
        ("RTX 4090", "mig", "no", 0),
        ("H100 SXM", "mig", "yes", 7),
        ("RTX PRO 6000", "mig", "yes", 4),
        ("L40S", "mig", "no", 0),
        ("L40S", "int8", "yes", 733),
        ("A100", "int8", "yes", 624),
        ("昇腾910B", "int8", "unknown", None),  # no sourced figure: not a "no"
        ("T4", "sparsity", "no", False),
        ("H200", "sparsity", "yes", True),
        ("MI300X", "mig", "no", 0),
    ],
)
def test_capability_verdicts_come_from_the_new_fields(catalog, gpu, capability, verdict, value):
    result = check_capability(CapabilityRequest(gpu=gpu, capability=capability), catalog)
    assert result.verdict == verdict
    assert result.value == value


def test_a_card_lacking_mig_is_offered_comparable_cards_that_have_it(catalog):
    result = check_capability(CapabilityRequest(gpu="L40S", capability="mig"), catalog)
    assert result.alternatives and all(card.value and card.value > 0 for card in result.alternatives)


def test_every_row_stating_a_capability_field_cites_a_dated_openable_source(catalog):
    stating = [g for g in catalog.gpus if g.mig_instances is not None or g.int8_tops is not None or g.sparsity_2_4 is not None]
    assert len(stating) >= 40
    for gpu in stating:
        assert gpu.capability_sources, gpu.id
        assert all(s.url.startswith("https://") and s.date[:2] in ("19", "20") for s in gpu.capability_sources), gpu.id


def test_geforce_and_non_nvidia_rows_never_claim_mig(catalog):
    for gpu in catalog.gpus:
        if gpu.mig_instances and (gpu.segment == "consumer" or gpu.vendor != "NVIDIA"):
            pytest.fail(f"{gpu.id} claims MIG")


def test_a_capability_figure_without_a_source_is_refused(catalog):
    row = catalog.gpu("L4").model_dump(exclude={"china", "china_rule"})
    row["capability_sources"] = []
    with pytest.raises(ValidationError, match="capability_sources"):
        GPU.model_validate(row)
