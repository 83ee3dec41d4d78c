"""Questions sent to the calculator that fits them (session 17b): a model name the catalog lacks is sized from the size
its name carries, in both languages, instead of ending the answer at "model not found"."""

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tools.models.resolve import resolve_model

catalog = load_catalog()


@pytest.mark.parametrize(
    ("name", "size_b"),
    [("Quasarix-34B", 34), ("nimbus_13b", 13), ("Orbital-70B-Chat", 70), ("星河-13B", 13), ("Kestrel:7b", 7)],
)
def test_a_name_with_its_size_is_sized_from_that_size(name, size_b):
    spec = resolve_model(name, catalog)
    assert spec.params_b == pytest.approx(size_b)
    assert spec.family == "generic"
    assert name.split(":")[0].removesuffix("-Chat") in spec.name and name.split(":")[0].removesuffix("-Chat") in spec.name_zh


def test_a_catalog_name_still_resolves_to_its_row():
    assert resolve_model("Qwen2.5-7B", catalog).id == "qwen2.5-7b"


@pytest.mark.parametrize("name", ["Quasarix", "Nimbus-7B-13B"])
def test_a_name_without_one_size_still_asks_which_model(name):
    with pytest.raises(AdvisorError) as raised:
        resolve_model(name, catalog)
    assert raised.value.code == "unknown_model"


# ------------------------------------------------------------------ a stated small machine keeps its class

from tests.threads import ask, calls  # noqa: E402


@pytest.mark.parametrize(
    ("message", "cards"),
    [
        ("How much power and cooling does a workstation with two RTX 4090s need?", 2),
        ("我的工作站插了两张4090，整机功耗和散热要按多少准备？", 2),
    ],
)
def test_a_workstation_is_powered_as_that_machine_not_a_rack_server(offline_advisor, message, cards):
    plans = calls(ask(offline_advisor, message), "plan_facility")
    assert plans, "the facility plan answers a workstation's power"
    assert plans[0].args["gpus_per_server"] == cards


@pytest.mark.parametrize(
    "message",
    ["Four RTX 4090s in one box: how much power does the machine draw and what circuit does it need?",
     "一台机器装四张4090，整机功耗多少，需要什么样的电路？"],
)
def test_cards_in_one_box_get_that_machines_power_plan(offline_advisor, message):
    plans = calls(ask(offline_advisor, message), "plan_facility")
    assert plans, "the machine's power is planned, not answered by a card on data-centre power"
    assert plans[0].args["gpus_per_server"] == 4


def test_a_known_family_at_another_size_still_names_the_catalog_models():
    with pytest.raises(AdvisorError) as raised:
        resolve_model("Qwen2.5 70B", catalog)
    assert "Qwen2.5-72B" in raised.value.suggestions
