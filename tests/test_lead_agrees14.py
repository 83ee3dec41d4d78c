"""The lead agrees with the body, and the answer carries nothing unasked (#36, class 5 and clutter). Each figure an
answer prints carries its scope from the tool result: a job's need on one card is never called "per GPU", two memory
tables of one answer never share a title, a stated load leads with the same figures as the table below it. Sections
that answer another question (a card's China status, foreign electricity tariffs, a capacity note of zeros) appear only
when the Ask makes them relevant. Wording of our own, in both languages."""

from __future__ import annotations

import re

import pytest

from advisor.markdown import number
from tests.threads import lead


def results(response, name: str) -> list[dict]:
    return [call.result for call in response.tool_calls if call.name == name and call.result]


# "229.5 GB per GPU", "每卡需要 675.6 GB", "每卡约 86.5 GB", "每卡需要 **42.3 GB**": a memory figure labelled per GPU
PER_GPU = re.compile(r"(\d[\d,]*(?:\.\d+)?) GB per GPU|每卡(?:需要|约)?\s*\**\s*(\d[\d,]*(?:\.\d+)?)\s*\**\s*GB")


def per_gpu_figures(text: str) -> set[str]:
    return {en or zh for en, zh in PER_GPU.findall(text)}


TOO_BIG_FOR_ONE = [
    "Is one RTX 4090 enough to serve Llama 3.1 70B in bf16?",
    "一张 4090 能跑 Llama 3.1 70B 的 bf16 推理吗？",
    "How much KV cache does Llama 3.1 70B need for 32 concurrent users at 8k context on H100s?",
    "一张 L40S 能放下 Qwen2.5-72B 做推理吗？",
    "Can a single L40S hold Qwen2.5-72B for inference?",
    "部署 DeepSeek-R1 需要多少张 H20？每张卡的显存占用多少？",
]


@pytest.mark.parametrize("question", TOO_BIG_FOR_ONE)
def test_a_need_on_one_card_is_never_called_per_gpu(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    estimates = results(response, "estimate_memory")
    one_card = {number(r["total_per_gpu_gb"]) for r in estimates if r.get("num_gpus") == 1 and r.get("fit_plan")}
    assert one_card, "the question sizes a job too big for one card"
    shared = {number(r["total_per_gpu_gb"]) for r in estimates if (r.get("num_gpus") or 1) > 1}
    shared |= {number(route["per_gpu_gb"]) for r in estimates if r.get("fit_plan") for route in [r["fit_plan"]["same_card"], *r["fit_plan"]["routes"]] if route.get("per_gpu_gb")}
    mislabelled = (per_gpu_figures(response.answer) & one_card) - shared
    assert not mislabelled, (mislabelled, lead(response))
    # the one-card figure the lead gives is the breakdown's own total, under a title that names the one card
    need = next(iter(one_card))
    assert need in lead(response) or need in response.summary, response.summary
    titles = re.findall(r"^\*\*([^*\n]*(?:GB\)|（GB）))\*\*$", response.answer, flags=re.M)
    assert len(titles) == len(set(titles)), titles  # two breakdowns of different layouts, two titles


@pytest.mark.parametrize(
    ("question", "users"),
    [
        ("What throughput can I get serving Qwen2.5-32B on two L40S with vLLM, about 20 concurrent users?", 20),
        ("用两张 L40S 部署 Qwen2.5-32B，vLLM，大概 20 个并发，吞吐能到多少？", 20),
        ("Two L40S running Qwen2.5-32B in vLLM for 24 people chatting at once: what speed does each get?", 24),
        ("两张 L40S 跑 Qwen2.5-32B，24 个人同时聊天，每人能有多快？", 24),
    ],
)
def test_a_stated_load_leads_with_the_figures_of_its_own_table(offline_advisor, question, users):
    response = offline_advisor.answer(question, [])
    first = lead(response)
    at_load = [r for r in results(response, "estimate_throughput") if r["effective_batch"] == users and r["num_gpus"] == 2]
    assert at_load, [r["effective_batch"] for r in results(response, "estimate_throughput")]
    # the lead's figure is that of an estimate at the load asked, the one the table shows (each user's speed against a
    # target or floor, or the deployment's total)
    shown = [number(r[field]) for r in at_load for field in ("output_tokens_per_s_total", "tokens_per_s_per_user_streaming")]
    assert any(figure in first for figure in shown), first
    assert str(users) in first, first
    assert not first.startswith(("**One user", "**2 张 NVIDIA L40S 上单路")), first  # a single stream is the reason, not the lead


# ------------------------------------------------------------------ clutter: sections only when the Ask makes them relevant

CHINA_WORDS = ("mainland China", "export-controlled", "China edition", "barred", "US licence")


@pytest.mark.parametrize(
    "question",
    ["What's the memory bandwidth and power draw of the H200 compared with the H100?", "Compare the A100 80GB and the L40S for serving a 13B model."],
)
def test_a_spec_comparison_that_names_no_china_carries_no_china_status(offline_advisor, question):
    answer = offline_advisor.answer(question, []).answer
    assert not any(word in answer for word in CHINA_WORDS), answer


@pytest.mark.parametrize(
    "question",
    ["H100 和 H200 的显存带宽各是多少？", "We are buying for our Shanghai office: compare the H100 and the H20 for us."],
)
def test_a_china_buyer_keeps_the_china_status_of_the_cards_compared(offline_advisor, question):
    answer = offline_advisor.answer(question, []).answer
    assert "国内可购" in answer or "China" in answer, answer


@pytest.mark.parametrize(
    "question",
    ["Can a 15 kW rack take two 8x H100 servers, and how are they cooled?", "一个 15 kW 的机柜能放两台 8 卡 H100 服务器吗？散热怎么做？"],
)
def test_a_rack_question_lists_no_electricity_tariffs(offline_advisor, question):
    answer = offline_advisor.answer(question, []).answer
    for words in ("Industrial electricity prices on file", "已收录的工业电价", "Iowa", "艾奥瓦", "western hubs", "西部枢纽"):
        assert words not in answer, words


def test_a_china_power_bill_is_priced_in_yuan_with_no_us_state_tariffs(offline_advisor):
    answer = offline_advisor.answer("两台 8 卡 H100 服务器放在杭州机房，一个月电费大概多少？", []).answer
    first = answer.split("\n\n", 1)[0]
    assert "¥" in first and "$" not in first, first
    assert "¥0.63" in answer  # the sourced China tariff, dated in the inputs table
    assert not any(state in answer for state in ("艾奥瓦", "俄亥俄", "伊利诺伊", "康涅狄格", "Iowa")), answer


def test_a_us_power_bill_lists_us_tariffs_and_no_china_hub_note(offline_advisor):
    answer = offline_advisor.answer("What's the monthly electricity bill for two 8x H100 servers in a Texas colo?", []).answer
    first = answer.split("\n\n", 1)[0]
    assert "$" in first and "¥" not in first, first
    assert "western hubs" not in answer and "China, average industrial tariff" not in answer, answer


def test_a_capacity_note_never_reports_zero_kv_tokens(offline_advisor):
    for question in TOO_BIG_FOR_ONE[2:4]:
        answer = offline_advisor.answer(question, []).answer
        assert "about 0 KV tokens" not in answer and "约可容纳 0 个 KV token" not in answer, answer


def test_a_rent_or_buy_answer_dates_its_defaults_in_chinese_too(offline_advisor):
    answer = offline_advisor.answer("8 张 A100 80G 买还是租？国内租每卡时 ¥7，用三年，利用率六成。", []).answer
    defaults = [line for line in answer.splitlines() if line.startswith("- 默认值：") and "[来源]" in line]
    assert defaults, answer
    assert all(re.search(r"[（，]\d{4}(?:-\d{2})?(?:-\d{2})?）", line) for line in defaults), defaults
    assert "一台 8×H100 服务器约 10 kW" not in answer  # the power note speaks of the server priced, not another one


# ------------------------------------------------------------------ several questions share one screen; a site plan answers all

@pytest.mark.parametrize(
    "question",
    [
        "Does DeepSeek-R1 fit on H20s, and how much memory does each card use?",
        "部署 DeepSeek-R1 需要多少张 H20？每张卡的显存占用多少？",
        "How many H100 do we need for Qwen2.5-72B at 30 users? And how much memory does each card hold?",
        "Qwen2.5-72B 给 30 个人用要几张 H100？每张卡显存占多少？",
    ],
)
def test_a_several_question_answer_fits_one_screen_above_the_fold(offline_advisor, question):
    from advisor.markdown import FOLD_LINES, screen_lines

    summary = offline_advisor.answer(question, []).summary
    assert sum(screen_lines(block) for block in summary.split("\n\n") if block.strip()) <= FOLD_LINES + 1, summary


@pytest.mark.parametrize(
    ("question", "cooling"),
    [
        ("Can a 12 kW rack hold two 8x H100 servers? What about cooling?", "Air cooling is enough"),
        ("一个 15 kW 的机柜能放两台 8 卡 H100 服务器吗？散热怎么做？", "风冷即可"),
    ],
)
def test_a_rack_and_its_cooling_are_answered_by_one_site_plan(offline_advisor, question, cooling):
    summary = offline_advisor.answer(question, []).summary
    assert cooling in summary.split("\n\n", 1)[0], summary
    assert "no answer of its own" not in summary and "没有专门的答案" not in summary, summary
