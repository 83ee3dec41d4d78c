"""Numbers in one answer agree with each other and the verdict is not hidden: a grid of our own questions (en and zh;
serving, rent or buy, memory, recommendation, troubleshooting, comparisons) goes through the offline advisor once, and
every answer is checked against invariants that hold whatever the question:

- a per-user speed is never above the total throughput it is part of (tool results and the text);
- a per-GPU figure times the GPU count is the total shown beside it;
- every per-GPU-hour price shown lies inside the sourced range of the rent tiers (no per-node price shown per GPU);
- a "faster by P%" in a comparison's lead is the ratio of the speeds in its table;
- no paragraph is printed twice;
- a table the user asked for is above the fold, not only in the folded details.
"""

from __future__ import annotations

import re

import pytest

from knowledge.clouds import load_cloud_rates
from tools.cost.money import DEFAULT_USD_TO_CNY

SERVING = [
    "How fast can 8 H100s serve Llama 3.1 70B to 50 users at once?",
    "8张H100跑Llama 3.1 70B，50个并发用户，每秒能出多少token？",
    "Tokens per second for Qwen2.5-32B on two A100 80GB with 20 concurrent users?",
    "两张A100 80G跑Qwen2.5-32B，20个用户同时用，速度多少？",
    "What throughput does one H200 give for Llama 3.1 8B with 100 concurrent requests?",
    "单张L40S跑Qwen2.5-7B，30个并发，每个用户多少token/s？",
]
TCO = [
    "Buy or rent 8 H100s for 3 years at 60% utilisation?",
    "8张H100用三年，利用率60%，买还是租？",
    "Is owning 16 A100 80GB worth it over 4 years if they are busy 85% of the time?",
    "16张A100用4年，利用率85%，自己买划算吗？",
    "How much does renting an H100 cost per GPU-hour?",
    "租一张H200每小时多少钱？",
    "Is $2.10 per GPU-hour a fair rent for an H100?",
    "Self-hosting Llama 3.1 70B or the GPT-4o API for 200M tokens a month, which is cheaper?",
    "每月2亿token，自建Llama 3.1 70B和用GPT-4o API哪个便宜？",
]
MEMORY = [
    "How much KV cache does Llama 3.1 70B need for 32 users at 8k context on 4 H100s?",
    "4张H100跑Llama 3.1 70B，32个用户8k上下文，KV缓存要多少？",
    "Can two RTX 4090 run Qwen2.5-32B?",
    "两张4090能跑Qwen2.5-32B吗？",
    "How much GPU memory to fine-tune Llama 3.1 8B with LoRA?",
    "全参数微调Qwen2.5-7B需要多少显存？",
]
RECOMMEND = [
    "Which GPUs should we buy to serve Qwen2.5-72B for 100 users? Please give me a table.",
    "给100个用户部署Qwen2.5-72B，推荐什么GPU？请给一个表格。",
    "Best GPU under $20,000 to run Llama 3.1 8B for a team of 10?",
    "预算20万人民币，给20人团队部署Qwen2.5-32B，买什么卡？",
]
COMPARE = [
    "Compare H100 and H200 in a table for serving Llama 3.1 70B.",
    "用表格对比H100和H200部署Llama 3.1 70B。",
    "H100 or H200 to serve Llama 3.1 70B for 20 users?",
    "A100还是H100跑Qwen2.5-72B推理，10个用户？",
]
TROUBLE = [
    "Our 8 A100s only reach 30% utilisation while serving Llama 70B, why?",
    "我们8张A100跑Llama 70B推理，利用率只有30%，为什么？",
    "vLLM on 4 H100 gives only 15 tokens/s per user with 64 users on Llama 3.1 70B, is that normal?",
    "训练Llama 8B时GPU利用率只有40%，8张H100，怎么回事？",
]
QUESTIONS = SERVING + TCO + MEMORY + RECOMMEND + COMPARE + TROUBLE
ASKS_TABLE = {q for q in QUESTIONS if "table" in q or "表格" in q}


@pytest.fixture(scope="module")
def answers(offline_advisor):
    return {question: offline_advisor.answer(question, []) for question in QUESTIONS}


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _results(response, name):
    return [call.result for call in response.tool_calls if call.name == name and call.result]


# ---- per-user speed and total throughput ----
PER_USER_AND_TOTAL = [  # a lead that gives both figures of one deployment at one load
    re.compile(r"([\d,.]+) tokens/s per user[^.]*?([\d,.]+) tokens/s in total"),
    re.compile(r"每用户约 ?([\d,.]+) token/s[^。]*?总计约? ?([\d,.]+) token/s"),
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_user_never_gets_more_than_the_whole_deployment(answers, question):
    response = answers[question]
    for result in _results(response, "estimate_throughput"):
        if result.get("effective_batch", 1) > 1:  # several users share the deployment's output
            assert result["tokens_per_s_per_user_streaming"] <= result["output_tokens_per_s_total"] + 0.05, result
    for pattern in PER_USER_AND_TOTAL:
        for per_user, total in pattern.findall(response.answer):
            assert _number(per_user) <= _number(total) + 0.05, (per_user, total, response.summary)


@pytest.mark.xfail(reason="open: the side-by-side table shows the decode speed between prefills per user against a total with "
                   "every prefill counted, and sizes a comparison at one user whatever the load asked", strict=False)
@pytest.mark.parametrize("question", COMPARE)
def test_a_comparison_table_gives_no_user_more_than_the_total(answers, question):
    response = answers[question]
    table_rows = dict(_table_row(response.answer, label) for label in SPEED_ROWS if _table_row(response.answer, label))
    per_user = next((v for k, v in table_rows.items() if k in ("Speed per user", "单用户速度")), None)
    total = next((v for k, v in table_rows.items() if k in ("Total throughput", "总吞吐")), None)
    if per_user and total:
        for user_speed, total_speed in zip(per_user, total, strict=True):
            assert user_speed <= total_speed + 0.05, (per_user, total)


SPEED_ROWS = ("Speed per user", "单用户速度", "Total throughput", "总吞吐")


def _table_row(answer: str, label: str):
    """The numbers of the side-by-side table's row ``label``, one per option, or None."""
    for line in answer.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == label:
            return label, [_number(re.match(r"[\d,.]+", c).group()) for c in cells[1:] if re.match(r"[\d,.]+", c)]
    return None


# ---- per GPU × count = total ----
PER_GPU_TIMES_COUNT = [  # (per GPU, count, total) as the memory verdicts write them
    (re.compile(r"\*\*([\d.]+) GB per GPU\*\* on (\d+) GPUs \(([\d,.]+) GB in total\)"), (1, 2, 3)),
    (re.compile(r"每卡需要 \*\*([\d.]+) GB\*\* 显存，共 (\d+) 张卡（合计 ([\d,.]+) GB）"), (1, 2, 3)),
    (re.compile(r"KV cache: ([\d,.]+) GB\*\*[^;]*?([\d.]+) GB on each of the (\d+) GPUs"), (2, 3, 1)),
    (re.compile(r"KV 缓存：([\d,.]+) GB\*\*[^；]*?(\d+) 张卡上每卡 ([\d.]+) GB"), (3, 2, 1)),
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_per_gpu_figures_times_the_count_make_the_total(answers, question):
    response = answers[question]
    for result in _results(response, "estimate_memory"):
        if result.get("num_gpus"):
            assert result["total_all_gpus_gb"] == pytest.approx(result["total_per_gpu_gb"] * result["num_gpus"], rel=0.01, abs=0.1)
    for pattern, (each_at, count_at, total_at) in PER_GPU_TIMES_COUNT:
        for match in pattern.finditer(response.answer):
            each, count, total = (_number(match.group(i)) for i in (each_at, count_at, total_at))
            assert each * count == pytest.approx(total, rel=0.01, abs=0.15), match.group()


# ---- a rent per GPU-hour inside the sourced range ----
def _rent_range_usd() -> tuple[float, float]:
    usd = [(r.low or r.price, r.high or r.price, 1 if r.currency == "USD" else DEFAULT_USD_TO_CNY) for r in load_cloud_rates()]
    return min(low / rate for low, _, rate in usd), max(high / rate for _, high, rate in usd)


LOW_USD, HIGH_USD = _rent_range_usd()
PER_GPU_HOUR = [
    (re.compile(r"\$([\d,]+(?:\.\d+)?)(?:/GPU-hour| per GPU-hour| a GPU-hour)"), 1.0),
    (re.compile(r"每卡时 ?(?:约 ?)?¥([\d,]+(?:\.\d+)?)"), DEFAULT_USD_TO_CNY),
    (re.compile(r"¥([\d,]+(?:\.\d+)?)/卡时"), DEFAULT_USD_TO_CNY),
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_gpu_hour_price_lies_in_the_sourced_range(answers, question):
    response = answers[question]
    for pattern, per_usd in PER_GPU_HOUR:
        for figure in pattern.findall(response.answer):
            usd = _number(figure) / per_usd
            # owning's cost per GPU-hour and break-even rents sit below the cheapest rent, never above the dearest
            assert usd <= HIGH_USD * 1.05, (figure, HIGH_USD, response.summary)
            assert usd >= 0.05, figure


# ---- a ratio in the lead is the table's ----
FASTER_BY = [re.compile(r"faster by about ([\d.]+)%"), re.compile(r"快约 ?([\d.]+)%")]


@pytest.mark.parametrize("question", COMPARE)
def test_a_ratio_in_the_lead_is_the_tables(answers, question):
    response = answers[question]
    speeds = next((row for row in (_table_row(response.answer, label) for label in ("Speed per user", "单用户速度")) if row), None)
    for pattern in FASTER_BY:
        for percent in pattern.findall(response.summary):
            assert speeds, response.answer
            fast, slow = max(speeds[1]), min(speeds[1])
            assert _number(percent) == pytest.approx((fast / slow - 1) * 100, abs=1.5), (percent, speeds)


# ---- nothing said twice, nothing asked for folded away ----
@pytest.mark.parametrize("question", QUESTIONS)
def test_no_paragraph_is_printed_twice(answers, question):
    blocks = [b.strip() for b in answers[question].answer.split("\n\n") if len(b.strip()) > 40]
    repeated = {b for b in blocks if blocks.count(b) > 1}
    assert not repeated, repeated


@pytest.mark.parametrize("question", sorted(ASKS_TABLE))
def test_a_table_asked_for_is_above_the_fold(answers, question):
    response = answers[question]
    assert any(line.lstrip().startswith("|") for line in response.summary.splitlines()), response.summary


def test_the_grid_covers_both_languages_and_every_area(answers):
    zh = [q for q in QUESTIONS if re.search(r"[\u4e00-\u9fff]", q)]
    assert len(zh) >= 12 and len(QUESTIONS) - len(zh) >= 12
    used = {call.name for response in answers.values() for call in response.tool_calls}
    assert {"estimate_throughput", "compute_tco", "estimate_memory", "recommend_gpus", "diagnose", "rental_prices"} <= used
