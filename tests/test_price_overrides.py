"""A company's own prices (ADVISOR_PRICES): applied to every tool, listed by `gpu-advisor prices`, and a bad file
refused by the loader, every CLI command and the server's start-up check, naming the file, the line and the fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.config import ConfigError, Settings
from knowledge import catalog as catalog_module
from knowledge import clouds as clouds_module
from knowledge.bilingual import AdvisorError
from knowledge.catalog import catalog_gpu_id, shipped_gpu_ids
from knowledge.price_overrides import load_price_overrides

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "prices.example.yaml"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _clear_caches() -> None:
    for cached in (catalog_module.priced_catalog, clouds_module._priced_clouds, clouds_module._price_book):
        cached.cache_clear()


@pytest.fixture
def company_prices(monkeypatch, tmp_path):
    """ADVISOR_PRICES pointing at a copy of the documented example; caches rebuilt before and after."""
    path = tmp_path / "prices.yaml"
    shutil.copy(EXAMPLE, path)
    monkeypatch.setenv("ADVISOR_PRICES", str(path))
    _clear_caches()
    yield path
    monkeypatch.delenv("ADVISOR_PRICES")
    _clear_caches()


def registry():
    from advisor.deps import default_registry

    return default_registry()  # not the shared one: it may hold the shipped prices


def test_the_documented_example_is_valid():
    overrides = load_price_overrides(EXAMPLE, catalog_gpu_id, shipped_gpu_ids())
    assert set(overrides.gpus) == {"h100-sxm", "rtx-4090"}  # "RTX 4090" resolved to its id
    assert overrides.power.electricity_per_kwh.currency == "CNY" and overrides.clouds[0].tier == "specialist"


def test_overrides_reach_the_tco_tool(company_prices):
    result = registry().run("compute_tco", {"gpu": "h100-sxm", "currency": "CNY", "utilisation_pct": 100})
    given = {a.key: a for a in result.assumptions}
    assert given["server_price"].value == pytest.approx(26_500 * 7.2 * 8 + 250_000)  # the company's GPU and HGX host prices
    assert "8-GPU HGX/OAM server" in given["server_price"].source and "Q-2026-118" in given["server_price"].source
    assert given["cloud_price_per_gpu_hour"].value == pytest.approx(2.40 * 7.2)
    assert given["electricity_price"].value == pytest.approx(0.58) and "company price" in given["electricity_price"].source
    assert given["colo_price_per_kw_month"].value == pytest.approx(1100)
    specialist = next(row for row in result.tier_paybacks if row.tier == "specialist")
    assert specialist.company and specialist.quoted_price == 2.10 and specialist.price_per_gpu_hour == pytest.approx(2.10 * 7.2)
    assert specialist.payback_months == pytest.approx(result.capex / (8 * 730 * 2.10 * 7.2 - result.own_monthly_opex))


def test_overrides_reach_the_recommendations(company_prices):
    args = {"model": "llama-3.1-70b", "task": "inference", "gpus": ["h100-sxm"], "currency": "USD"}
    options = registry().run("recommend_gpus", args).options
    h100 = next(o for o in options if o.gpu_id == "h100-sxm")
    assert h100.gpu_cost == pytest.approx(26_500 * h100.count)
    assert h100.server_class == "hgx-8gpu" and h100.server_count >= 1  # the company's HGX host: 250,000 CNY at the shipped rate
    assert h100.purchase_cost == pytest.approx(h100.gpu_cost + h100.server_count * 250_000 / 7.2)
    assert h100.cloud_cost_per_hour == pytest.approx(2.40 * h100.count)


def test_the_prices_command_marks_the_company_figures(company_prices, capsys):
    assert main(["prices", "--json"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)
    ours = [row for row in rows if row["company"]]
    assert {row["kind"] for row in ours} == {"gpu_purchase", "gpu_cloud", "power", "cloud_tier", "server"}
    hgx = next(row for row in ours if row["kind"] == "server" and "HGX" in row["item"])
    assert hgx["date"] == "2026-11-20" and "Q-2026-118" in hgx["source"]
    assert all(row["date"] and row["source"] for row in rows)
    assert any(row["item"] == "NVIDIA H100 SXM" and row["amount"] == 26_500 and row["date"] == "2026-11-20" for row in ours)


BAD_FILES = {  # case → (file text, line the error must name, words of the English fix, of the Chinese fix)
    "unknown_gpu": (("gpus:\n  h100-sxm:\n    purchase: {amount: 1, currency: USD, date: 2026-11-01, source: q-1}\n  H1000 Ultra:\n"
                     "    purchase: {amount: 1, currency: USD, date: 2026-11-01, source: q-1}\n"), 4, "unknown GPU", "未知的 GPU"),
    "unknown_gpu_alone": ("gpus:\n  Z9000:\n    purchase: {amount: 9, currency: USD, date: 2026-11-01, source: quote 7}\n", 2, "unknown GPU 'Z9000'", "未知的 GPU"),
    "negative_price": ("power:\n  electricity_per_kwh:\n    amount: -0.1\n    currency: USD\n    date: 2026-11-01\n    source: bill\n",
                       3, "above 0", "大于 0"),
    "negative_card_price": ("gpus:\n  l40s:\n    purchase: {amount: -9000, currency: USD, date: 2026-11-01, source: quote 7}\n", 3, "above 0", "大于 0"),
    "missing_date": ("clouds:\n  - gpu: h100-sxm\n    tier: specialist\n    amount: 2.1\n    currency: USD\n    source: contract\n",
                     2, "date: YYYY-MM-DD", "报价日期"),
    "missing_server_date": ("servers:\n  hgx-8gpu: {amount: 30000, currency: USD, source: quote 7}\n", 2, "date: YYYY-MM-DD", "报价日期"),
    "wrong_currency": ("gpus:\n  a100-80gb-sxm:\n    cloud: {amount: 1.9, currency: EUR, date: 2026-11-01, source: q}\n",
                       3, "USD or CNY", "USD 或 CNY"),
    "wrong_power_currency": ("power:\n  electricity_per_kwh: {amount: 0.2, currency: EUR, date: 2026-11-01, source: bill 3}\n", 2, "USD or CNY", "USD 或 CNY"),
    "nameless_source": ("gpus:\n  l40s:\n    purchase: {amount: 9000, currency: USD, date: 2026-11-01, source: x}\n", 3, "who quoted", "报价出处"),
    "unknown_tier": ("clouds:\n  - gpu: h100-sxm\n    tier: spot\n    amount: 1\n    currency: USD\n    date: 2026-11-01\n    source: c\n",
                     3, "hyperscaler_on_demand", "档位"),
    "unknown_server": ("servers:\n  dgx-9000: {amount: 1, currency: USD, date: 2026-11-01, source: q}\n", 2, "unknown server class 'dgx-9000'", "未知的服务器类别"),
    "negative_server": ("servers:\n  pcie-8gpu: {amount: -5, currency: USD, date: 2026-11-01, source: q}\n", 2, "above 0", "大于 0"),
    "undated_server": ("gpus: {}\nservers:\n  pcie-8gpu: {amount: 5, currency: USD, source: q}\n", 3, "date: YYYY-MM-DD", "报价日期"),
    "bad_yaml": ("gpus:\n  h100-sxm:\n    purchase: {amount: 1, currency: USD\n", 4, "YAML", "YAML"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_refused_by_the_loader_the_prices_command_and_the_server_naming_the_line_and_fix(case, monkeypatch, tmp_path, capsys):
    """One table of malformed files (unknown GPU, negative price, missing date, wrong currency, a nameless source, ...):
    the loader, `gpu-advisor prices` (non-zero exit, no traceback) and the server's start-up check each name the file,
    the line and the fix in both languages."""
    text, line, fix_en, fix_zh = BAD_FILES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(AdvisorError) as error:
        load_price_overrides(path, catalog_gpu_id, shipped_gpu_ids())
    assert error.value.code == "invalid_prices_file"
    assert f"{path}, line {line}" in error.value.en and fix_en in error.value.en
    assert f"{path} 第 {line} 行" in error.value.zh and fix_zh in error.value.zh and CJK.search(error.value.zh)
    monkeypatch.setenv("ADVISOR_PRICES", str(path))
    assert main(["prices"]) != 0
    err = capsys.readouterr().err
    assert f"{path}, line {line}" in err and fix_en in err and f"{path} 第 {line} 行" in err and fix_zh in err
    assert "Traceback" not in err
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"ADVISOR_PRICES": str(path)})
    said = str(refused.value)
    assert f"{path}, line {line}" in said and fix_en in said and f"{path} 第 {line} 行" in said and fix_zh in said


def test_every_problem_is_reported_at_once(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("gpus:\n  h100-sxm:\n    purchase: {amount: -1, currency: GBP, source: q}\n  nope:\n    cloud: {amount: 1, currency: USD, date: 2026-11-01, source: q}\n")
    with pytest.raises(AdvisorError) as error:
        load_price_overrides(path, catalog_gpu_id, shipped_gpu_ids())
    assert all(words in error.value.en for words in ("above 0", "USD or CNY", "date: YYYY-MM-DD", "unknown GPU 'nope'"))


def test_every_cli_command_refuses_a_bad_file(monkeypatch, tmp_path, capsys):
    path = tmp_path / "prices.yaml"
    path.write_text("power:\n  colocation_per_kw_month: {amount: 150, currency: USD, source: contract}\n")
    monkeypatch.setenv("ADVISOR_PRICES", str(path))
    for command in (["prices"], ["gpus"], ["tool", "list_gpus"]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert f"{path}, line 2" in err and f"{path} 第 2 行" in err


def test_the_server_does_not_start_with_a_bad_file(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("gpus:\n  h100-sxm:\n    purchase: {amount: 0, currency: USD, date: 2026-11-01, source: q}\n")
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"ADVISOR_PRICES": str(path)})
    assert "ADVISOR_PRICES" in str(error.value) and f"{path}, line 3" in str(error.value) and f"{path} 第 3 行" in str(error.value)
    missing = tmp_path / "absent.yaml"
    with pytest.raises(ConfigError, match="Cannot read the prices file"):
        Settings.from_env({"ADVISOR_PRICES": str(missing)})
    assert Settings.from_env({"ADVISOR_PRICES": str(EXAMPLE)}).prices_file == EXAMPLE
