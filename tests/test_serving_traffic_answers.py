"""Serving and sizing answers that use the user's own numbers, in both languages (wording of our own):
traffic over a period sized at its peak with the chain shown, a stated card memory used and said, MoE memory on
all experts, and a slowdown report answered by the KV-cache check first."""

from __future__ import annotations

import re

from tests.threads import ask


def figure_after(text: str, words: str) -> float:
    found = re.search(words + r"\D{0,12}([\d,]+(?:\.\d+)?)", text)
    assert found, text
    return float(found.group(1).replace(",", ""))


def test_daily_users_are_sized_at_their_peak_rate_not_all_at_once_en(offline_advisor):
    r = ask(offline_advisor, "about 30,000 daily active users will chat with llama 3.1 8b, how many L40S do we need?")
    assert "30,000" in r.summary and "Little" in r.summary  # the chain, above the fold
    assert "30,000 at once" not in r.summary and "for 30,000" not in r.summary


def test_daily_users_are_sized_at_their_peak_rate_zh(offline_advisor):
    r = ask(offline_advisor, "日活差不多3万，部署Qwen2.5-14B，需要几张L40S？")
    assert "日活" in r.summary and "利特尔法则" in r.summary
    assert "预算" not in r.summary.split("\n")[0]  # 3万 is users, not a budget


def test_a_monthly_request_volume_becomes_a_peak_rate(offline_advisor):
    r = ask(offline_advisor, "we get around 6 million requests a month on qwen2.5 7b, how many A10 cards?")
    assert "86,400" in r.summary and "requests/s" in r.summary
    zh = ask(offline_advisor, "每个月大约600万次调用，Qwen2.5-7B，要几张A10？")
    assert "86,400" in zh.summary and "高峰系数" in zh.summary


def test_a_stated_memory_picks_the_40gb_variant(offline_advisor):
    en = ask(offline_advisor, "serving qwen2.5 32b on 2 a100, ours are the 40gb version, how fast?")
    assert "A100 40GB" in en.summary
    zh = ask(offline_advisor, "我们的A100是40G的", "用2张A100跑Qwen2.5-32B速度怎么样")
    assert "A100 40GB" in zh.summary and "40 GB" in zh.summary


def test_a_modded_card_is_sized_with_the_stated_memory(offline_advisor):
    en = ask(offline_advisor, "my rtx 4090 was modded to 48gb, does qwen2.5 32b in fp8 fit on it?")
    assert "48 GB" in en.summary and "24 GB" in en.summary  # says the stated figure replaced the catalog's
    zh = ask(offline_advisor, "魔改48G的4090，能放下FP8的Qwen2.5-32B吗")
    assert "48 GB" in zh.summary and "改装" in zh.summary


def test_moe_memory_counts_every_expert_when_the_question_leans_on_active(offline_advisor):
    en = ask(offline_advisor, "qwen3 235b only activates 22b per token, so a single h100 holds it?")
    assert "235" in en.summary and "every expert" in en.summary.lower() or "any of its" in en.summary
    zh = ask(offline_advisor, "Qwen3-235B每个token只激活22B，一张H100放得下吗")
    assert "235" in zh.summary and "激活参数少并不能省显存" in zh.summary


def test_a_zh_slowdown_with_roomy_memory_leads_with_the_kv_check(offline_advisor):
    r = ask(offline_advisor, "并发一高就变得很慢，是显存不足吗", "我们用4张H100部署Qwen2.5-32B，速度如何")
    first = r.summary.split("\n\n")[0]
    assert "KV" in first and ("不是显存不够" in first or "KV 缓存被挤占" in first)


def test_a_per_user_volume_after_daily_users_multiplies_them(offline_advisor):
    r = ask(offline_advisor, "and if every user fires off 40 requests per day?", "how many l40s to serve qwen2.5 7b to 8k DAU?")
    assert "8,000 daily users × 40 requests each = 320,000 a day" in r.summary
