"""Share prices and investing in chip makers are declined with what the advisor does; questions naming the same
companies about migration, buying or export rules stay in scope. And an FP8 question about an Ampere card leads
with the missing FP8 tensor cores, read from the catalog."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("question", "declined"),
    [
        ("寒武纪这只股票现在入手合适吗", "超出"),
        ("英伟达的股价年底前还能涨多少", "超出"),
        ("Would Cambricon shares be a smart investment this year?", "outside"),
    ],
)
def test_an_investment_question_is_declined_with_what_the_advisor_does(offline_advisor, question, declined):
    response = offline_advisor.answer(question, [])
    assert declined in response.summary.split("\n")[0]
    assert response.tool_calls == []


@pytest.mark.parametrize(
    "question",
    ["我们想把推理服务从英伟达迁到华为910B，工作量大吗", "寒武纪的卡采购回来，跑大模型推理要改哪些代码", "Moving our CUDA training code to Huawei Ascend: how much work is it?"],
)
def test_the_same_companies_in_a_hardware_question_stay_in_scope(offline_advisor, question):
    response = offline_advisor.answer(question, [])
    assert "超出" not in response.summary and "outside what I can help" not in response.summary
    assert response.tool_calls  # answered from a card or a tool, not refused


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Our A30 boxes: can we serve Qwen in FP8 on them?", "no FP8 tensor cores"),
        ("A10 上能做 FP8 推理吗", "没有 FP8 张量核心"),
        ("does an RTX 3090 do fp8?", "no FP8 tensor cores"),
    ],
)
def test_fp8_on_an_ampere_card_leads_with_the_missing_tensor_cores_and_names_the_architecture(offline_advisor, question, lead):
    response = offline_advisor.answer(question, [])
    first = response.summary.split("\n\n")[0]
    assert lead in first and "Ampere" in first
