"""Prices pasted in the web UI's settings: checked like an ADVISOR_PRICES file, in force for one browser session's
answers only (never another session's, even at the same moment), layered on the server's file, and a bad paste
changes nothing."""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from advisor.deps import default_registry
from advisor.events import AnswerOptions
from advisor.interfaces.web_chat import respond
from advisor.interfaces.web_settings import apply_prices, clear_prices, priced, prices_status
from advisor.service import answer_with
from knowledge import catalog as catalog_module
from knowledge import clouds as clouds_module
from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog, pasted_prices
from knowledge.price_overrides import session_prices

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "prices.example.yaml"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _quote(gpu: str, amount: float, source: str, kind: str = "purchase") -> str:
    return f"gpus:\n  {gpu}:\n    {kind}: {{amount: {amount}, currency: USD, date: 2026-11-03, source: \"{source}\"}}\n"


CHEAP_H100 = _quote("H100 SXM", 12_345, "desk quote K-41")
DEAR_H100 = _quote("h100-sxm", 54_321, "broker offer Z-90")


def _h100_purchase() -> float:
    return load_catalog().find_gpu("h100-sxm").purchase_price.amount


@pytest.fixture
def registry():
    return default_registry()


def _tco_capex(registry) -> float:
    return registry.run("compute_tco", {"gpu": "h100-sxm", "servers": 1, "gpus_per_server": 8, "currency": "USD"}).capex


# --- checked like a file -----------------------------------------------------------------------


@pytest.mark.parametrize("text, line, en_fix, zh_fix", [
    ("gpus:\n  h100-sxm:\n    cloud: {amount: 0, currency: USD, date: 2026-11-01, source: bill}\n", 3, "above 0", "大于 0"),
    ("power:\n  electricity_per_kwh: {amount: 0.7, currency: JPY, date: 2026-11-01, source: bill}\n", 2, "USD or CNY", "USD 或 CNY"),
    ("servers:\n  hgx-8gpu: {amount: 90000, currency: USD, source: quote}\n", 2, "date: YYYY-MM-DD", "报价日期"),
    ("gpus:\n  Z9000 Turbo:\n    purchase: {amount: 10, currency: USD, date: 2026-11-01, source: shop}\n", 2, "unknown GPU", "未知的 GPU"),
])  # fmt: skip
def test_a_bad_paste_names_the_pasted_line_and_the_fix_in_both_languages(text, line, en_fix, zh_fix):
    with pytest.raises(AdvisorError) as error:
        pasted_prices(text)
    assert f"the pasted prices, line {line}" in error.value.en and en_fix in error.value.en
    assert f"粘贴的价格 第 {line} 行" in error.value.zh and zh_fix in error.value.zh and CJK.search(error.value.zh)


def test_an_empty_paste_is_no_prices_and_the_same_text_is_one_set_of_prices():
    assert pasted_prices("  \n") is None
    assert pasted_prices(CHEAP_H100) is pasted_prices(CHEAP_H100)  # so a session's answers reuse one priced catalog


def test_a_paste_of_nested_aliases_is_refused_quickly():
    bomb = "a: &a [x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 8)}]\n" for i in range(8))  # fmt: skip
    started = time.monotonic()
    with pytest.raises(AdvisorError):
        pasted_prices(bomb)
    assert time.monotonic() - started < 2


# --- one session's prices, nobody else's ---------------------------------------------------------


def test_pasted_prices_apply_inside_the_session_only(registry):
    shipped = _h100_purchase()
    with session_prices(pasted_prices(CHEAP_H100)):
        assert _h100_purchase() == 12_345
        ours = _tco_capex(registry)
        price = load_catalog().find_gpu("h100-sxm").purchase_price
        assert price.source == "desk quote K-41" and price.overridden_by == "company prices (settings)"
    assert _h100_purchase() == shipped != 12_345
    assert _tco_capex(registry) > ours + 8 * (shipped - 12_345) * 0.99  # the shipped price is back for everyone else


def test_two_sessions_answering_at_the_same_time_each_see_only_their_own_prices(registry):
    seen: dict[str, set[float]] = {"cheap": set(), "dear": set(), "none": set()}
    pastes = {"cheap": CHEAP_H100, "dear": DEAR_H100, "none": ""}
    start = threading.Barrier(3)

    def session(name: str) -> None:
        start.wait()
        for _ in range(25):
            with session_prices(pasted_prices(pastes[name])):
                seen[name].add(_h100_purchase())
                time.sleep(0.001)  # let the other sessions run in between

    threads = [threading.Thread(target=session, args=(name,)) for name in pastes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen["cheap"] == {12_345} and seen["dear"] == {54_321}
    assert len(seen["none"]) == 1 and seen["none"].isdisjoint({12_345, 54_321})


def test_the_chat_answers_with_the_sessions_prices_and_not_with_another_sessions(offline_advisor):
    question = "Rent or buy 8x H100 at 60% utilisation?"

    def capex(prices: str) -> float:
        *_, (_, turns, _) = respond(offline_advisor, question, [], [], "en", prices)
        return next(c for c in turns[-1]["tool_calls"] if c["name"] == "compute_tco")["result"]["capex"]

    cheap, plain, dear = capex(CHEAP_H100), capex(""), capex(DEAR_H100)
    assert cheap < plain < dear
    assert capex("") == plain  # the dear session's answer left nothing behind


def test_a_model_answer_thread_keeps_the_sessions_prices(offline_advisor):
    """``answer_with`` is what both the UI's thread and a worker process call: the options carry the paste."""
    seen = []

    class Recorder:
        def answer(self, message, history, options=None):
            seen.append(_h100_purchase())
            return offline_advisor.answer(message, history)

    answer_with(Recorder(), "hello", [], AnswerOptions(prices=DEAR_H100))
    answer_with(Recorder(), "hello", [], None)
    assert seen[0] == 54_321 and seen[1] != 54_321


def test_calculators_run_with_the_sessions_prices(registry):
    from advisor.interfaces import web_handlers as handlers

    def tco(language: str) -> str:
        return handlers.tco_calc(registry, language, "h100-sxm", 1, 8, 60, 4, "USD", None, None)[1]

    with_paste = priced(tco)(_quote("h100-sxm", 1.11, "rate card R-5", kind="cloud"), "en")
    assert "1.11" in with_paste and "1.11" not in priced(tco)("", "en")


# --- on top of the server's file -----------------------------------------------------------------


@pytest.fixture
def company_file(monkeypatch, tmp_path):
    path = tmp_path / "prices.yaml"
    shutil.copy(EXAMPLE, path)
    monkeypatch.setenv("ADVISOR_PRICES", str(path))
    yield path
    monkeypatch.delenv("ADVISOR_PRICES")
    for cached in (catalog_module.priced_catalog, clouds_module._priced_clouds, clouds_module._price_book):
        cached.cache_clear()


def test_a_paste_replaces_the_files_entries_it_names_and_keeps_the_rest(company_file):
    assert _h100_purchase() == 26_500  # the file's
    with session_prices(pasted_prices(CHEAP_H100)):
        catalog = load_catalog()
        assert catalog.find_gpu("h100-sxm").purchase_price.amount == 12_345
        assert catalog.find_gpu("h100-sxm").cloud_price.amount == 2.40  # the file's cloud price stays
        assert catalog.find_gpu("rtx-4090").purchase_price.source == "JD.com order 88231"
        assert "prices.yaml + settings" in catalog.find_gpu("h100-sxm").purchase_price.overridden_by
    assert _h100_purchase() == 26_500


# --- the settings tab's handlers -----------------------------------------------------------------


@pytest.mark.parametrize("language, in_force, rejected, kept", [
    ("en", "in force", "not applied", "prices you applied before"),
    ("zh", "已生效", "未被采用", "您之前应用的价格"),
])  # fmt: skip
def test_the_settings_keep_what_was_in_force_when_a_paste_is_bad(language, in_force, rejected, kept):
    prices, status = apply_prices(CHEAP_H100, "", language)
    assert prices == CHEAP_H100 and in_force in status and "gpus → h100-sxm → purchase: 12,345 USD (2026-11-03)" in status
    bad = CHEAP_H100.replace("12345", "-5")
    prices, status = apply_prices(bad, prices, language)
    assert prices == CHEAP_H100  # still the good paste
    assert rejected in status and kept in status and ("line 3" in status if language == "en" else "第 3 行" in status)
    assert clear_prices(language)[:2] == ("", "") and prices_status("", language) == clear_prices(language)[2]


def test_a_bad_first_paste_leaves_the_catalog_prices():
    prices, status = apply_prices("gpus: [oops", "", "en")
    assert prices == "" and "catalog's prices" in status and "YAML" in status
