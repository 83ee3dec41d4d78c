"""A training time is only worth having if the run fits on its cards, and a count asked for a data size
must say how long that count takes. Wording of our own, not from any split."""

from __future__ import annotations

from knowledge.catalog import load_catalog
from tests.test_planner_policy import ask, calls
from tools.memory.estimator import MemoryRequest, estimate_memory
from tools.recommend.configs import sold_count_from


def test_a_run_timed_on_cards_that_cannot_hold_it_says_so(offline_advisor):
    response = ask(offline_advisor, "full fine-tune of llama 3.1 70b on 8 h100s over 2B tokens, how many days?")
    (timed,) = calls(response, "estimate_training_time")
    assert timed.args["num_gpus"] == 8
    assert response.summary.startswith("**❌ Does not fit: full fine-tuning")  # the memory verdict before any time
    fits = ask(offline_advisor, "full fine-tune of qwen2.5 7b on 8 h100s over 2B tokens, how many days?")
    assert "Does not fit" not in fits.answer
    chinese = ask(offline_advisor, "8张H100全参微调Llama-3.1-70B，20亿token，要几天")
    assert chinese.summary.startswith("**❌ 放不下：") and "全参微调在 8 张" in chinese.summary


def test_an_adapter_run_with_no_count_is_timed_on_one_card(offline_advisor):
    response = ask(offline_advisor, "roughly how long is a qlora pass over 30M tokens for mistral 7b on an l4")
    (timed,) = calls(response, "estimate_training_time")
    assert timed.args["num_gpus"] == 1 and "1 GPU (no count or deadline given)" in response.answer


def test_a_count_asked_for_a_data_size_says_how_long_it_takes_and_what_finishes_in_time(offline_advisor):
    response = ask(offline_advisor, "how many a100s would we need to pretrain a 3b on 600B tokens")
    timed = calls(response, "estimate_training_time")
    assert timed and timed[0].args["tokens"] == 600e9
    assert "⏱️ On this configuration 600B tokens take" in response.answer and "To finish within 90 days" in response.answer
    assert "this answer does not need it" not in response.answer
    chinese = ask(offline_advisor, "用5000亿token预训练一个3B模型，该买几张A800")
    assert "⏱️ 按这个配置，500B token 要训" in chinese.answer and "天内完成，大约需要" in chinese.answer


def test_the_lever_for_an_already_sharded_part_does_not_suggest_the_sharding_in_use():
    estimate = estimate_memory(
        MemoryRequest(model="llama-3.1-70b", mode="training", method="full", gpu="h100-sxm", num_gpus=8, zero_stage=3), load_catalog()
    )
    assert estimate.verdict == "does_not_fit"
    assert "already shards them over 8 GPUs" in estimate.main_lever.en and "ZeRO-1/2" not in estimate.main_lever.en
    assert "已在 8 张卡上切分" in estimate.main_lever.zh


def test_a_count_for_a_deadline_is_rounded_to_what_is_sold_and_timed_again(offline_advisor):
    response = ask(offline_advisor, "how many h100s to pretrain a 7b model on 800B tokens within 3 weeks")
    needed, sold = (call.args.get("num_gpus") for call in calls(response, "estimate_training_time"))
    assert needed is None and sold % 8 == 0  # the first call asks for the deadline's count, the second times whole servers
    count = int(response.answer.split("×", 1)[0].strip("* "))
    assert count % 8 != 0 and 0 < sold - count < 8 and f"As sold, that is **{sold}** ({sold // 8} servers of 8)" in response.answer
    chinese = ask(offline_advisor, "三周内用A800把7B在8000亿token上预训练完，要几张卡")
    assert "按整机或整板采购为" in chinese.answer and "台 8 卡服务器" in chinese.answer
    on_consumer_cards = ask(offline_advisor, "how many 4090s to finish a qlora of mistral 7b on 3B tokens within 20 days")
    assert "As sold" not in on_consumer_cards.answer


def test_counts_as_sold_are_whole_servers_past_one_and_racks_for_rack_scale_parts():
    catalog = load_catalog()
    assert [sold_count_from(catalog.gpu("h100-sxm"), n) for n in (3, 8, 9, 77, 700)] == [4, 8, 16, 80, 704]
    assert sold_count_from(catalog.gpu("gb200"), 80) == 144
    assert sold_count_from(catalog.gpu("rtx-4090"), 3) == 4 and sold_count_from(catalog.gpu("rtx-4090"), 11) is None
