"""A yes/no between two named parts answers first, with the number it rests on, and warnings follow it; a part sold
only on boards is priced in a comparison as the smallest machine it comes in, not as one card in a whole 8-GPU host.
Wording of our own, in both languages."""

from __future__ import annotations

from tests.threads import ask, calls


def _paragraphs(response) -> list[str]:
    return response.answer.split("\n\n")


def test_a_premium_for_a_regulated_service_gives_its_verdict_before_the_warning(offline_advisor):
    response = ask(offline_advisor, "For an insurer's claims assistant on Qwen2.5-14B, does the RTX 5090 justify its extra cost over the RTX 4090?")
    paragraphs = _paragraphs(response)
    assert paragraphs[0].startswith(("**Yes, worth it", "**About even", "**Not for")), paragraphs[0]
    assert "%" in paragraphs[0]  # the deciding number is in the verdict
    warned = next(i for i, p in enumerate(paragraphs) if "GeForce (consumer)" in p)
    assert warned == 1 and paragraphs[warned].startswith("⚠️ **That verdict is only half the answer"), paragraphs[:3]


def test_a_chinese_premium_for_a_regulated_service_gives_its_verdict_before_the_warning(offline_advisor):
    response = ask(offline_advisor, "我们是保险公司，客服问答跑Qwen2.5-14B，选RTX 5090要多掏钱，比4090值不值？")
    paragraphs = _paragraphs(response)
    assert paragraphs[0].startswith(("**值得", "**大致持平", "**仅就")), paragraphs[0]
    warned = next(i for i, p in enumerate(paragraphs) if "GeForce 消费级显卡" in p)
    assert warned >= 1 and paragraphs[warned].startswith("⚠️ **上面的结论只回答了一半"), paragraphs[:3]


def test_a_premium_without_a_job_names_the_deciding_multiples_in_its_verdict(offline_advisor):
    first = ask(offline_advisor, "Is an H200 worth the extra over an H100 for our team?").answer.split("\n")[0]
    assert first.startswith("**It depends on the job: the NVIDIA H200 SXM is worth its premium for serving (1.43× the speed for 1.24× the price)"), first
    zh = ask(offline_advisor, "H200比H100溢价不少，值吗？").answer.split("\n")[0]
    assert zh.startswith("**看任务：NVIDIA H200 SXM 多花的钱在推理上值得（1.24 倍价格换 1.43 倍速度）"), zh


def test_a_claimed_multiple_is_answered_in_the_first_sentence(offline_advisor):
    response = ask(offline_advisor, "A reseller told us the B200 runs 15 times faster than the H100. Is that accurate?")
    assert response.answer.startswith("**No, not"), response.answer[:200]
    assert "15×" in response.answer.split("\n")[0]
    zh = ask(offline_advisor, "代理商说B200比H100快15倍，这个说法靠得住吗？")
    assert zh.answer.startswith("**按"), zh.answer[:200]
    assert "15 倍" in zh.answer.split("\n")[0]


def test_one_board_only_card_is_priced_as_the_smallest_machine_it_is_sold_in(offline_advisor):
    response = ask(offline_advisor, "Single A100 versus single RTX 4090 to serve Llama-3.1-8B: which gives more for the money?")
    priced = {c.args["gpu"]: c.args["gpus"] for c in calls(response, "estimate_server_price")}
    assert priced["a100-80gb-sxm"] == 4  # its smallest HGX board, never one SXM card in an 8-GPU host
    assert priced["a100-80gb-pcie"] == 1  # the way one card is bought: its PCIe model
    assert "$44,500" not in response.answer
    assert "sold on whole GPU boards, not card by card" in response.answer
    assert "smallest machine sold, 4 cards: 4 × $12,500" in response.answer
    assert "NVIDIA A100 80GB PCIe" in response.answer


def test_one_board_only_card_in_chinese_names_its_pcie_model_with_a_workstation_price(offline_advisor):
    response = ask(offline_advisor, "单张H100和单张L40S部署Qwen2.5-7B，哪个更值？")
    assert "按整块基板销售" in response.answer, response.answer[:600]
    assert "NVIDIA H100 PCIe 版本：1 张装进4 卡工作站整机约 $34,500" in response.answer, response.answer[:900]


def test_a_pcie_card_at_its_own_count_is_priced_at_that_count(offline_advisor):
    response = ask(offline_advisor, "one L40S or one RTX 4090 for serving Llama-3.1-8B?")
    priced = {c.args["gpu"]: c.args["gpus"] for c in calls(response, "estimate_server_price")}
    assert priced.get("rtx-4090") == 1
    assert "boards, not card by card" not in response.answer


def test_a_premium_without_a_job_prices_both_parts_as_the_same_whole_machine(offline_advisor):
    response = ask(offline_advisor, "Is paying more for the H100 over the A100 worth it?")
    priced = {c.args["gpu"]: c.args["gpus"] for c in calls(response, "estimate_server_price")}
    assert priced == {"h100-sxm": 4, "a100-80gb-sxm": 4}  # the smallest board either comes in, host included
    assert "As whole machines (4× each, host included)" in response.answer.split("\n")[0]
