"""Compound questions: every part is answered, and a part a tool can compute is computed.

- "which card, and what does it cost to run?" in one message: the second question is answered on the configuration the
  first part recommends (its power or hosting bill, a month or a year), in its own section, not as the purchase price.
- a cost per million tokens on the user's own cards against an API is worked out (owning's hour, the API's price)
  instead of a "no worked answer" card; a stated API price is the one weighed.
- a multi-year TCO against a cloud offer per GPU-hour is the rent-or-buy sum at that offer.
- "batch 16 × 8192 tokens" sizes that batch at that sequence length; 8192 is no count of cards.
"""

import pytest

NO_WORKED_ANSWER = ("no worked answer", "没有现成的答案")


def _section(summary: str, number: int) -> str:
    """The text of part ``number`` of a several-question answer (between its heading and the next part's)."""
    head = f"**{number}."  # "**2.** _the question_" or, for measures asked in one sentence, "**2. Electricity bill**"
    assert head in summary, summary
    after = summary.split(head, 1)[1]
    return after.split(f"**{number + 1}.", 1)[0]


@pytest.mark.parametrize(("message", "bill_words", "price_words"), [
    ("Which card should we buy to serve Qwen2.5-32B for 20 users, and how much per month will it cost to run?",
     ("a month",), "the whole configuration"),
    ("What GPU should we get for Llama 3.1 8B inference, and what are the running costs per month?", ("a month",), "the whole configuration"),
    ("What GPU do we need for Llama 3.1 8B inference, and what's the electricity bill per year?", ("a year",), "the whole configuration"),
    ("部署Qwen2.5-72B用什么卡？每年运行成本多少？", ("每月", "每年"), "整套约"),
    ("用什么卡跑Qwen2.5-32B？一个月运行费用大概多少？", ("每月",), "整套约"),
    ("选什么卡跑Qwen2.5-72B推理？一年电费多少？", ("年电费",), "整套约"),
])  # fmt: skip
def test_the_running_cost_part_is_computed_on_the_recommended_configuration(offline_advisor, message, bill_words, price_words):
    response = offline_advisor.answer(message, [])
    opening = response.summary.split("\n\n")[0]
    assert "(2)" in opening or "（2）" in opening, opening  # both parts answered in the opening line
    second = _section(response.summary, 2)
    lead = second.strip().split("\n\n")[1]  # the part's quoted question, then its verdict
    assert any(word in lead for word in bill_words), lead
    assert price_words not in lead.lower(), lead  # a running cost, not the purchase price again
    assert "DGX" not in second, second  # the configuration the first part recommends, not a default server
    assert not any(phrase in response.summary for phrase in NO_WORKED_ANSWER)
    tools = {call.name for call in response.tool_calls}
    assert {"recommend_gpus", "plan_facility"} <= tools, tools


@pytest.mark.parametrize(("message", "api_price", "owning"), [
    ("What is our cost per million output tokens for Llama 3.1 70B on 8xH100 we own, compared with paying an API $0.90 per million?",
     "$0.90", "owning cost"),
    ("What is the cost per million tokens serving Llama 3 70B on our own 8×H100 server versus the API?", "$0.63", "owning cost"),
    ("我们已经有8张H100，跑Qwen2.5-72B每百万token成本多少？比调API便宜吗？API是每百万token 4元", "¥4.00", "自购持有成本"),
    ("自建8卡H100服务器跑Llama 3 70B，每百万token成本多少，和API比呢？", "¥4.54", "自购持有成本"),
])  # fmt: skip
def test_cost_per_token_on_own_cards_against_an_api_is_worked_out(offline_advisor, message, api_price, owning):
    response = offline_advisor.answer(message, [])
    assert not any(phrase in response.answer for phrase in NO_WORKED_ANSWER), response.answer
    lead = response.summary.split("\n\n")[0]
    assert ("per million" in lead or "每百万" in lead) and ("cheaper" in lead or "更便宜" in lead), lead  # the verdict first
    assert owning in lead, lead  # the cards are owned or bought: owning's hour, not a rent
    assert api_price in response.summary, response.summary  # the API price weighed, the user's own when stated
    serving = [c for c in response.tool_calls if c.name == "estimate_throughput"]
    assert serving and all(c.args["num_gpus"] == 8 and c.args["gpu"] == "h100-sxm" for c in serving), [c.args for c in serving]


@pytest.mark.parametrize(("message", "rate"), [
    ("3-year TCO of buying 8 H100s vs a cloud offer of $2.50/GPU-hour?", "$2.50/GPU-hour"),
    ("Compare 3-year TCO for an 8x H100 server versus renting at $2.10 per GPU-hour from a cloud provider.", "$2.10/GPU-hour"),
    ("3-year TCO for 16 A100s versus a cloud quote of $1.80 per GPU-hour?", "$1.80/GPU-hour"),
    ("买8张H100三年总成本和云上每卡每小时2.5美元相比哪个划算？", "每卡时 $2.50"),
])  # fmt: skip
def test_tco_against_a_cloud_offer_is_the_rent_or_buy_sum_at_that_offer(offline_advisor, message, rate):
    response = offline_advisor.answer(message, [])
    assert not any(phrase in response.answer for phrase in NO_WORKED_ANSWER)
    lead = response.summary.split("\n\n")[0]
    assert lead.startswith(("**Rent", "**Buy", "**租", "**买")), lead  # the verdict first
    assert rate in response.summary, response.summary
    (tco,) = [c for c in response.tool_calls if c.name == "compute_tco"][:1]
    assert tco.args.get("horizon_years", tco.args.get("lifetime_years")) in (3, 3.0), tco.args


@pytest.mark.parametrize(("message", "batch", "context"), [
    ("Full fine-tune of Llama 3 8B with batch 16 × 8192 tokens — how much GPU memory and which cards?", 16, 8192),
    ("Full fine-tune of Qwen2.5-7B at batch 8 × 4096 tokens: how much memory per GPU?", 8, 4096),
    ("全参微调Llama 3 8B，batch 16×8192 token，需要多少显存？", 16, 8192),
    ("全参数微调Qwen2.5-7B，batch 8，序列长度4096，每张卡要多少显存？", 8, 4096),
])  # fmt: skip
def test_a_batch_times_tokens_is_sized_at_that_batch_and_length(offline_advisor, message, batch, context):
    response = offline_advisor.answer(message, [])
    estimates = [c for c in response.tool_calls if c.name == "estimate_memory"]
    assert estimates, [c.name for c in response.tool_calls]
    first = estimates[0].args
    assert first.get("batch") == batch and first.get("context") == context, first
    assert all((c.args.get("num_gpus") or 1) <= 8 for c in estimates), [c.args.get("num_gpus") for c in estimates]  # 8192 is no card count
    lead = response.summary.split("\n\n")[0]
    assert "GB" in lead and "8192 GPUs" not in response.answer and "8192 张" not in response.answer, lead
