"""Serving defaults a consultant would choose, said next to the headline (#35 item 1; tests/test_consultant_defaults.py holds
the fine-tune and KV-cache ones): lower-bit weights before more cards when
no precision was named, a readable floor beside the chat floor, a headcount that is not all at once, and the machines
of a desk-side buyer's own class. Our own wording in both languages."""

from __future__ import annotations

from tests.threads import ask


def _lead(response) -> str:
    return response.answer.split("\n\n")[0]


def test_no_precision_named_the_lower_bits_that_fit_one_card_lead(offline_advisor):
    en = ask(offline_advisor, "Would Llama 3.1 70B on one L40S be fast enough for chat?")
    second = en.answer.split("\n\n")[1]  # the precision that decided it, right under the headline
    assert "AWQ-INT4" in second and "does not fit" in second, en.answer[:600]
    assert "benchmarks" in second  # the quality cost in one line
    assert "arxiv.org/abs/2411.02355" in en.answer  # and its source
    zh = ask(offline_advisor, "单张4090部署Qwen2.5-32B，最多能同时服务几路？")
    assert "路并发" in _lead(zh)  # the count asked leads, the precision that decided it follows
    assert "AWQ-INT4" in zh.answer.split("\n\n")[1] and "放得下" in zh.answer.split("\n\n")[1], zh.answer[:600]


def test_short_of_the_chat_floor_but_readable_says_the_single_stream_first(offline_advisor):
    en = ask(offline_advisor, "Would Llama 3.1 70B on one L40S be fast enough for chat?")
    assert "One user streams" in en.answer and "readable floor of 10 tokens/s" in en.answer, en.answer[:900]
    assert "Not even one user" not in en.answer
    assert "Readable floor 10 tokens/s per user" in en.answer  # the floor is an assumption the user can change


def test_a_named_16_bit_precision_is_kept_and_fp8_count_is_said(offline_advisor):
    en = ask(offline_advisor, "Keeping fp16 weights, how many H100s to host Llama 3 70B for 100 concurrent users?")
    assert "FP16" in _lead(en) and "In FP8 weights 4×" in en.answer, en.answer[:700]
    zh = ask(offline_advisor, "坚持用fp16权重，100个并发用户跑Llama 3 70B要几张H100？")
    assert "FP16" in _lead(zh) and "若改用 FP8 权重" in zh.answer, zh.answer[:700]


def test_users_are_not_all_at_once_unless_said(offline_advisor):
    en = ask(offline_advisor, "We want Qwen2.5-72B on H100s for 400 users, how many GPUs?")
    # 10% of 400 is 40 on average at the busiest moment; the plan covers 95% of such moments (knowledge/audience.yaml)
    assert "≈ 40 on average" in en.answer and "≈ 50 at once" in en.answer, en.answer[-1500:]
    at_once = ask(offline_advisor, "We want Qwen2.5-72B on H100s for 400 users at the same time, how many GPUs?")
    assert "≈ 50 at once" not in at_once.answer and "400" in _lead(at_once)
    zh = ask(offline_advisor, "Qwen2.5-72B给400个用户用，需要几张H100？")
    assert "平均约 40" in zh.answer and "约 50 路" in zh.answer, zh.answer[-1500:]


def test_a_mac_team_gets_desk_side_alternatives_not_a_gpu_count(offline_advisor):
    en = ask(offline_advisor, "Our Mac Studio M2 Ultra 192GB: could it run Llama 3 70B for my team of 12?")
    assert "TP=12" not in en.answer and "Tensor parallelism 12" not in en.answer, en.answer[:600]
    assert "HGX" not in en.answer.split("Assumptions")[0]
    zh = ask(offline_advisor, "我的Mac Studio M2 Ultra 192GB，给12个人的团队跑Llama 3 70B行吗？")
    assert "TP=12" not in zh.answer and "HGX" not in zh.answer.split("假设")[0], zh.answer[:600]
