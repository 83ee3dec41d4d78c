"""Recommendation answers say, once and below the fold, when a GPU price they lean on is over 6 months old."""

from __future__ import annotations

import datetime as dt
import types

import pytest

from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.recommend.core import recommend_gpus
from tools.recommend.schema import RecommendRequest


def _recommend(today: str | None):
    request = RecommendRequest(model="Qwen2.5-7B", gpus=["RTX 4090", "L40S"], today=today)
    return recommend_gpus(request, load_catalog(), load_serving_data())


def test_prices_older_than_six_months_are_listed_once_per_gpu():
    later = _recommend("2099-01-01")
    named = [row.what.en for row in later.stale_prices]
    assert named and len(named) == len(set(named))
    assert all(row.age_months > 6 for row in later.stale_prices)


def test_no_date_or_fresh_prices_flag_nothing():
    assert _recommend(None).stale_prices == []
    newest = max(row.date for row in _recommend("2099-01-01").stale_prices)
    day_of_newest = (newest + "-01-01")[:10] if len(newest) == 4 else (newest + "-01")[:10]
    assert newest not in {row.date for row in _recommend(day_of_newest).stale_prices}


class _Far(dt.date):
    @classmethod
    def today(cls):
        return dt.date(2099, 1, 1)


@pytest.mark.parametrize("question, says", [
    ("Which GPU should I buy to serve Qwen2.5-7B?", "more than half a year old"),
    ("部署 Qwen2.5-7B 推理应该买什么显卡？", "已超过半年"),
])  # fmt: skip
def test_answer_says_so_in_the_details(offline_advisor, monkeypatch, question, says):
    from advisor.offline.tasks.recommend import plan

    monkeypatch.setattr(plan, "dt", types.SimpleNamespace(date=_Far))
    response = offline_advisor.answer(question, [])
    assert says in response.details and says not in response.summary
    assert response.answer.count(says) == 1
