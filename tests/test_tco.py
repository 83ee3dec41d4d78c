"""Rent-vs-buy calculator: reference worked example, an 8-month payback story, never-pays-back cases, CNY."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.bilingual import AdvisorError
from knowledge.catalog import CatalogError, load_catalog
from knowledge.servers import server_data
from knowledge.tco_defaults import DATA_FILE, load_tco_defaults, tco_defaults
from tests.cost_catalog import small_catalog
from tools.cost.tco import TcoRequest, compute_tco

CATALOG = small_catalog()
CJK = re.compile(r"[\u4e00-\u9fff]")


def tco(catalog=CATALOG, **fields):
    return compute_tco(TcoRequest(**fields), catalog)


# Worked example (the rent-vs-buy guide, knowledge/docs/en/rent-vs-buy.md): 8×H100 server $300k + 15% network,
# 4-year straight line with no resale, 7.5 kW average of a 10.2 kW server, PUE 1.3, $0.10/kWh,
# colocation $180/kW-month on 10.2 kW, maintenance 8%/yr, no staff.
WORKED_EXAMPLE = dict(
    server_price=300_000, network_overhead_pct=15, lifetime_years=4, residual_value_pct=0, server_max_kw=10.2,
    load_factor_pct=7.5 / 10.2 * 100, pue=1.3, electricity_price=0.10, colo_price_per_kw_month=180,
    maintenance_pct_per_year=8, staff_cost_per_month=0,
)  # fmt: skip
# Hand-checked monthly owned opex for those inputs: energy 7.5 × 1.3 × 730 × 0.10 = 711.75,
# colocation 10.2 × 180 = 1,836, maintenance 345,000 × 8% / 12 = 2,300 → 4,847.75.
WORKED_OPEX = 711.75 + 1836 + 2300


def test_worked_example_owned_cost_and_break_even_utilisation():
    result = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=2.50, utilisation_pct=100)
    assert result.capex == pytest.approx(345_000)
    assert result.own_monthly_opex == pytest.approx(WORKED_OPEX)
    assert result.own_monthly_cost * 12 == pytest.approx(144_000, rel=0.01)  # reference: "≈$144k/yr"
    assert result.break_even_utilisation_pct == pytest.approx(82, abs=1)  # reference: "~82% vs $2.50"
    aws = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, utilisation_pct=100)
    assert aws.break_even_utilisation_pct == pytest.approx(30, abs=1)  # reference: "~30% vs $6.88"
    assert aws.payback_months == pytest.approx(10, abs=0.5)  # reference: "~10 months at 100%"
    assert tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, utilisation_pct=70).payback_months == pytest.approx(15, abs=0.5)


def test_our_own_machines_paid_back_in_about_8_months():
    # The story: a team bought one 8×H100 server in 2024 for $300k (+15% network) while AWS p5
    # on-demand cost $98.32/hr = $12.29 per GPU-hour (before the June-2025 cut), and kept it 70% busy.
    # Power, colocation and maintenance as in the worked example, except the default 75% load factor.
    inputs = {**WORKED_EXAMPLE, "load_factor_pct": 75, "cloud_price_per_gpu_hour": 12.29, "utilisation_pct": 70}
    result = tco(**inputs)
    energy = 10.2 * 0.75 * 1.3 * 730 * 0.10  # 725.985
    opex = energy + 1836 + 2300
    cloud = 8 * 730 * 0.70 * 12.29  # 50,241.52
    assert result.cloud_monthly_cost == pytest.approx(cloud)
    assert result.own_monthly_opex == pytest.approx(opex)
    assert result.payback_months == pytest.approx(345_000 / (cloud - opex))  # 7.6
    assert result.break_even_month == 8
    # the chart series crosses in the same month
    crossing = next(p.month for p in result.series if p.month > 0 and p.own_cumulative <= p.cloud_cumulative)
    assert crossing == 8


def test_never_pays_back_against_a_cheap_neocloud():
    # $2.50/GPU-h at 50%: cloud 8 × 730 × 0.5 × 2.50 = $7,300/month vs $4,847.75 owned opex:
    # payback 345,000 / 2,452.25 = 140.7 months, far beyond the 48-month life.
    result = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=2.50, utilisation_pct=50)
    assert result.cloud_monthly_cost == pytest.approx(7300)
    assert result.payback_months == pytest.approx(345_000 / (7300 - WORKED_OPEX))
    assert result.break_even_month is None
    assert result.saving_from_owning < 0


def test_never_pays_back_when_cloud_is_below_running_costs():
    # $1.00/GPU-h at 50%: cloud $2,920/month is less than owned opex alone ($4,847.75).
    result = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=1.00, utilisation_pct=50)
    assert result.cloud_monthly_cost == pytest.approx(2920)
    assert result.payback_months is None and result.break_even_month is None
    assert result.break_even_utilisation_pct > 100
    assert "payback" not in {item.key for item in result.items}


def test_totals_series_and_residual_value():
    result = tco(**{**WORKED_EXAMPLE, "residual_value_pct": 25}, cloud_price_per_gpu_hour=6.88)
    months = 48
    assert result.horizon_months == months and len(result.series) == months + 1
    assert result.series[0].own_cumulative == result.capex and result.series[0].cloud_cumulative == 0
    resale = 345_000 * 0.25
    assert result.own_total == pytest.approx(345_000 + WORKED_OPEX * months - resale)
    assert result.cloud_total == pytest.approx(8 * 730 * 0.70 * 6.88 * months)  # default 70% utilisation
    assert result.own_monthly_cost == pytest.approx((345_000 - resale) / months + WORKED_OPEX)
    assert result.saving_from_owning == pytest.approx(result.cloud_total - result.own_total)


def test_defaults_come_from_the_catalog_gpu():
    result = tco(gpu="H100")
    sources = {a.key: a for a in result.assumptions}
    # an 8×H100 server has a published whole-server quote (knowledge/servers.yaml quotes): it beats GPUs + a generic host
    assert sources["server_price"].value == pytest.approx(285_000)
    assert "8-GPU HGX H100 server" in sources["server_price"].source
    # a card without one: the GPUs + one 8-GPU HGX host (knowledge/servers.yaml classes)
    a100 = {a.key: a for a in tco(gpu="a100-80gb-sxm").assumptions}
    assert a100["server_price"].value == pytest.approx(12_500 * 8 + 32_000)
    assert "8-GPU HGX/OAM server" in a100["server_price"].source
    assert sources["server_max_kw"].value == pytest.approx(700 * 8 * 1.8 / 1000)
    assert sources["cloud_price_per_gpu_hour"].value == 6.88
    assert "AWS p5" in sources["cloud_price_per_gpu_hour"].source
    assert all(a.source != "given" for a in result.assumptions)
    given = tco(gpu="H100", server_price=250_000)
    assert {a.key: a for a in given.assumptions}["server_price"].source == "given"
    assert {a.key: a for a in given.assumptions}["server_price"].links == []
    assert given.capex == pytest.approx(250_000 * 1.15)


# Defaults that are policies rather than figures: nothing to cite.
UNSOURCED_DEFAULTS = {"servers", "staff_cost_per_month_usd"}


def test_every_default_cites_public_pages_a_reader_can_open():
    defaults = tco_defaults()
    for key, default in defaults.items():
        assert "§" not in default.basis and "reference" not in default.basis.lower(), (key, default.basis)
        if key not in UNSOURCED_DEFAULTS:
            assert default.sources, f"{key} has no source"
            assert all(s.url.startswith("https://") and s.says and s.date for s in default.sources), key


def test_defaulted_assumptions_carry_their_values_and_links_from_the_data():
    defaults = tco_defaults()
    result = tco(gpu="H100")
    used = {a.key: a for a in result.assumptions}
    for key in ("network_overhead_pct", "lifetime_years", "residual_value_pct", "pue", "maintenance_pct_per_year",
                "utilisation_pct", "cloud_discount_pct", "load_factor_pct"):  # fmt: skip
        assert used[key].value == defaults[key].value and used[key].source == defaults[key].basis, key
        assert used[key].links == defaults[key].links and used[key].links, key
    assert used["electricity_price"].value == defaults["electricity_price_usd"].value
    assert used["colo_price_per_kw_month"].links == defaults["colo_price_per_kw_month_usd"].links
    assert used["server_price"].links == [server_data().quote_for("h100-sxm", 8).source.url]  # the whole-server quote's page
    a100 = {a.key: a for a in tco(gpu="a100-80gb-sxm").assumptions}  # no quote, and the test card price names no page
    assert a100["server_price"].links == defaults["server_price_per_gpu_price"].links
    assert used["server_max_kw"].links == defaults["server_power_per_gpu_power"].links
    # a China buyer's rent is a China quote (no price book here, and a US cloud rate is no China rent)
    in_cny = {a.key: a for a in tco(gpu="H100", currency="CNY", cloud_price_per_gpu_hour=13).assumptions}
    assert in_cny["electricity_price"].value == defaults["electricity_price_cny"].value
    assert in_cny["usd_to_cny"].links


def test_a_defaults_file_with_a_missing_row_or_a_bad_link_fails_loudly(tmp_path):
    text = DATA_FILE.read_text(encoding="utf-8")
    bad_link = tmp_path / "bad_link.yaml"
    unopenable = text.replace("url: https://encoradvisors.com", "url: see the reference §2.2 encoradvisors.com", 1)
    bad_link.write_text(unopenable, encoding="utf-8")
    with pytest.raises(CatalogError, match="url"):
        load_tco_defaults(bad_link)
    missing = tmp_path / "missing.yaml"
    missing.write_text(text.replace("\npue:\n", "\nnot_pue:\n", 1), encoding="utf-8")
    with pytest.raises(CatalogError, match="missing defaults \\['pue'\\]"):
        load_tco_defaults(missing)


def test_hours_per_month_is_an_alternative_to_utilisation():
    by_hours = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, hours_per_month=365)
    by_pct = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, utilisation_pct=50)
    assert by_hours.cloud_monthly_cost == pytest.approx(by_pct.cloud_monthly_cost)


def test_discount_lowers_the_cloud_bill():
    full = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88)
    reserved = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, cloud_discount_pct=40)
    assert reserved.cloud_monthly_cost == pytest.approx(full.cloud_monthly_cost * 0.6)
    assert reserved.payback_months > full.payback_months


def test_cny_path_uses_chinese_defaults_and_catalog_prices():
    # An 8×H800 server priced from the catalog (¥250,000 per GPU × 8 + an HGX host of $32,000 at 7.2 = ¥2,230,400), rented
    # elsewhere at ¥13/GPU-hour (H100 8-card lease ¥75k/month ÷ 8 ÷ 24 ÷ 30, CMIS/SMM band).
    result = tco(gpu="h800-sxm", currency="CNY", cloud_price_per_gpu_hour=13, usd_to_cny=7.2)
    values = {a.key: a.value for a in result.assumptions}
    assert result.currency == "CNY"
    assert values["server_price"] == pytest.approx(2_230_400)
    assert values["electricity_price"] == 0.63
    assert values["colo_price_per_kw_month"] == pytest.approx(180 * 7.2)
    assert values["usd_to_cny"] == 7.2
    capex = 2_230_400 * 1.15
    kw = 700 * 8 * 1.8 / 1000
    opex = kw * 0.75 * 1.3 * 730 * 0.63 + kw * 180 * 7.2 + capex * 0.08 / 12
    cloud = 8 * 730 * 0.70 * 13
    assert result.own_monthly_opex == pytest.approx(opex)
    assert result.payback_months == pytest.approx(capex / (cloud - opex))  # ≈ 175 months
    assert result.break_even_month is None  # renting at ¥13/GPU-h wins over a 4-year life
    assert any("¥" in item.formula for item in result.items)


def test_currency_does_not_change_the_answer():
    rate = 7.0
    usd = dict(server_price=300_000, cloud_price_per_gpu_hour=6.88, electricity_price=0.10,
               colo_price_per_kw_month=180, staff_cost_per_month=2000, server_max_kw=10.2)  # fmt: skip
    cny = {k: (v * rate if k != "server_max_kw" else v) for k, v in usd.items()}
    a, b = tco(**usd), tco(**cny, currency="rmb", usd_to_cny=rate)
    assert b.payback_months == pytest.approx(a.payback_months)
    assert b.break_even_utilisation_pct == pytest.approx(a.break_even_utilisation_pct)
    assert b.own_total == pytest.approx(a.own_total * rate)


def test_sensitivities_are_the_three_biggest_perturbation_swings():
    inputs = dict(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, utilisation_pct=70)
    result = tco(**inputs)
    assert len(result.sensitivities) == 3 <= len(result.sensitivity_details)
    swings = [d.swing for d in result.sensitivity_details]
    assert swings == sorted(swings, reverse=True)
    keys = [d.key for d in result.sensitivity_details]
    assert "staff_cost_per_month" not in keys  # zero staff cannot move anything by ±20%
    for text in result.sensitivities:
        assert text.en and CJK.search(text.zh)
    # the numbers are real re-runs: raising the cloud price 20% gives the stated advantage
    cloud = next(d for d in result.sensitivity_details if d.key == "cloud_price_per_gpu_hour")
    raised = tco(**{**inputs, "cloud_price_per_gpu_hour": 6.88 * 1.2})
    assert cloud.monthly_advantage_high == pytest.approx(raised.cloud_monthly_cost - raised.own_monthly_cost)


def test_inputs_that_move_the_answer_by_the_same_figures_share_one_line():
    # utilisation and the cloud price both scale the rent avoided: ±20% of either gives identical figures
    result = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=6.88, utilisation_pct=70)
    shared = [t for t in result.sensitivities if "Utilisation" in t.en]
    assert len(shared) == 1 and "Cloud price per GPU-hour" in shared[0].en and "the same figures" in shared[0].en
    assert "利用率" in shared[0].zh and "云上每卡时价格" in shared[0].zh and "数字相同" in shared[0].zh
    assert sum("Cloud price" in t.en for t in result.sensitivities) == 1


def test_power_reminder_is_bilingual_and_uses_the_server_power():
    result = tco(gpu="h100-sxm", servers=3)
    reminder = result.power_reminder
    assert "10.1 kW" in reminder.en and "30.2 kW" in reminder.en and "office" in reminder.en
    assert "办公室" in reminder.zh and "10.1 kW" in reminder.zh


def test_shipped_catalog_gpus_with_prices_work():
    catalog = load_catalog()  # a catalog that does not load is a failure, not a reason to skip
    priced = [g for g in catalog.gpus if g.purchase_price and g.cloud_price and g.tdp_w]
    assert priced, "expected some catalog GPUs with both prices"
    for gpu in priced:
        result = tco(catalog, gpu=gpu.id)
        assert result.capex > 0 and result.cloud_monthly_cost > 0


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        (dict(servers=0), "invalid_server_count"),
        (dict(servers=1_000_000_000), "invalid_server_count"),
        (dict(gpus_per_server=0), "invalid_gpu_count"),
        (dict(servers=100_000, gpus_per_server=72), "invalid_gpu_count"),
        (dict(server_price=-5), "invalid_server_price"),
        (dict(cloud_price_per_gpu_hour=-2), "invalid_cloud_price_per_gpu_hour"),
        (dict(electricity_price=-0.1), "invalid_electricity_price"),
        (dict(utilisation_pct=150), "invalid_utilisation_pct"),
        (dict(utilisation_pct=0), "invalid_utilisation_pct"),
        (dict(hours_per_month=800), "invalid_hours_per_month"),
        (dict(utilisation_pct=50, hours_per_month=300), "conflicting_utilisation"),
        (dict(lifetime_years=0), "invalid_lifetime_years"),
        (dict(pue=0.8), "invalid_pue"),
        (dict(currency="EUR"), "unknown_currency"),
        (dict(usd_to_cny=0.14), "invalid_exchange_rate"),
        (dict(gpu="h100-sxn-typo"), "unknown_gpu"),
    ],
)
def test_bad_input_is_a_bilingual_advisor_error(fields, code):
    with pytest.raises(AdvisorError) as err:
        tco(**{"gpu": "h100-sxm", **fields})
    assert err.value.code == code
    assert err.value.en and CJK.search(err.value.zh)


def test_missing_gpu_and_prices_asks_for_them():
    with pytest.raises(AdvisorError) as err:
        tco(cloud_price_per_gpu_hour=3)
    assert err.value.code == "tco_needs_gpu" and "gpu" in err.value.suggestions
    with pytest.raises(AdvisorError) as err:  # the test catalog's RTX 4090 has no purchase price, and no estimate
        tco(gpu="rtx-4090", cloud_price_per_gpu_hour=2)
    assert err.value.code == "tco_missing_price"


PRICE = st.floats(0.5, 30)
UTIL = st.floats(5, 100)


def _payback(price: float, util: float) -> float:
    months = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=price, utilisation_pct=util).payback_months
    return float("inf") if months is None else months


@settings(max_examples=60, deadline=None)
@given(price=PRICE, bump=st.floats(1.01, 3), util=UTIL)
def test_property_dearer_cloud_pays_back_sooner(price, bump, util):
    assert _payback(price * bump, util) <= _payback(price, util)


@settings(max_examples=60, deadline=None)
@given(price=PRICE, util=st.floats(5, 95), more=st.floats(1, 50))
def test_property_busier_servers_pay_back_sooner(price, util, more):
    assert _payback(price, min(100.0, util + more)) <= _payback(price, util)


@settings(max_examples=60, deadline=None)
@given(price=PRICE, bump=st.floats(1.01, 3))
def test_property_break_even_utilisation_falls_as_cloud_price_rises(price, bump):
    low = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=price).break_even_utilisation_pct
    high = tco(**WORKED_EXAMPLE, cloud_price_per_gpu_hour=price * bump).break_even_utilisation_pct
    assert high == pytest.approx(low / bump)
