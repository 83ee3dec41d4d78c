"""Answers that show catalog prices without a tool's own stale-price list (GPU specs, side-by-side comparisons,
training cost) say when a price they show is more than half a year old, naming the price's own date, in both languages."""

from __future__ import annotations

import datetime as dt

import pytest

from advisor.offline.tasks.tco import price_dates
from knowledge.catalog import load_catalog
from tools.cost.price_age import price_date

OLD_NOTE = {"en": "more than half a year old", "zh": "已超过半年"}
H100 = load_catalog().find_gpu("h100-sxm")


def _answer(advisor, monkeypatch, question: str, today: dt.date):
    monkeypatch.setattr(price_dates, "today", lambda: today)
    response = advisor.answer(question, [])
    return response.summary + "\n" + response.details


@pytest.mark.parametrize("question, language", [
    ("How much is an H100?", "en"),
    ("H100 多少钱一张？", "zh"),
])  # fmt: skip
def test_a_spec_answer_names_the_old_price_with_its_date(offline_advisor, monkeypatch, question, language):
    bought = price_date(H100.purchase_price.date)
    text = _answer(offline_advisor, monkeypatch, question, bought + dt.timedelta(days=400))
    assert OLD_NOTE[language] in text and H100.purchase_price.date in text


@pytest.mark.parametrize("question, language", [
    ("How much is an H100?", "en"),
    ("H100 多少钱一张？", "zh"),
])  # fmt: skip
def test_recent_prices_get_no_warning(offline_advisor, monkeypatch, question, language):
    newest = max(price_date(p.date) for p in (H100.purchase_price, H100.cloud_price))
    text = _answer(offline_advisor, monkeypatch, question, newest + dt.timedelta(days=30))
    # the card's own prices are recent: the note, if any, names only the older host machine of the whole-server price
    note = next((line for line in text.splitlines() if OLD_NOTE[language] in line), "")
    assert H100.purchase_price.date not in note and H100.cloud_price.date not in note
    assert not note or "HGX" in note


@pytest.mark.parametrize("question, language", [
    ("H100 or A100 to serve Llama 3.1 8B?", "en"),
    ("部署 Llama 3.1 8B 用 H100 还是 A100？", "zh"),
    ("How long to pretrain a 7B model on 1T tokens with 64 H100s, and at what cost?", "en"),
    ("用 64 张 H100 训练 7B 模型 1T token 需要多久、花多少钱？", "zh"),
])  # fmt: skip
def test_comparisons_and_training_costs_flag_old_prices(offline_advisor, monkeypatch, question, language):
    assert OLD_NOTE[language] in _answer(offline_advisor, monkeypatch, question, dt.date(2099, 1, 1))
    assert OLD_NOTE[language] not in _answer(offline_advisor, monkeypatch, question, dt.date(2000, 1, 1))
