"""Procurement proposals: the need read from a conversation, the sections built from the tools, and each format in both languages."""

from __future__ import annotations

import io
import json
import re

import pytest
from markdown_it import MarkdownIt

from advisor.contract import ChatTurn
from advisor.proposal.need import NeedMissing, read_need
from advisor.proposal.service import embedded_inputs, make_proposal, rebuild, render
from advisor.proposal.wording import is_proposal_command, phrase
from knowledge.bilingual import AdvisorError
from tools.facility import FacilityRequest, facility_needs

SERVING_ZH = "Qwen2.5-72B 部署给50个人同时用，预算30万美元"
SERVING_EN = "We want to serve Qwen2.5-72B to 50 concurrent users with a budget of $300k"
# A yuan budget keeps China-buyable parts only; none of them has a published rental price to compare with.
SERVING_CNY = "Qwen2.5-72B 部署给50个人同时用，预算200万人民币"
TRAINING_EN = "LoRA fine-tune Llama 3.1 8B on 2B tokens within 5 days"
OVER_BUDGET_EN = "Serve Llama 3.1 70B for 20 concurrent users, budget $3,000"
NOT_SIZED = {"zh": "GPU 是什么？", "en": "What is a GPU?"}
REMOTE_REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?!data:|#)[a-z]+:""", re.IGNORECASE)


@pytest.fixture(scope="module")
def planner(offline_advisor):
    return offline_advisor.planner


@pytest.fixture(scope="module")
def proposals(planner):
    return {"zh": make_proposal(planner, SERVING_ZH), "en": make_proposal(planner, SERVING_EN)}


def pdf_text(content: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


# the need


def test_the_need_keeps_what_was_stated_apart_from_what_was_assumed(proposals, planner):
    need = proposals["en"].need
    assert need.concurrency.value == 50 and need.concurrency.stated
    assert need.budget.stated and need.budget.value == {"amount": 300_000, "currency": "USD"}
    assert need.task.stated and need.task.value == "inference"  # "serve"
    assert not need.speed_target.stated and need.speed_target.value > 0
    assert "assumed" in render(proposals["en"], "markdown", images="none").content.decode()
    unnamed = read_need("Qwen2.5-72B for 50 concurrent users", [], planner)
    assert not unnamed.task.stated and unnamed.task.value == "inference"  # serving was assumed, and the proposal says so


def test_the_proposal_request_itself_is_not_read_as_the_question(planner):
    history = [ChatTurn(role="user", content=TRAINING_EN), ChatTurn(role="assistant", content="...")]
    need = read_need("make this a proposal", history, planner)
    assert need.task.value == "lora" and need.tokens.value == 2e9 and need.deadline_days.value == 5


@pytest.mark.parametrize("language", ["zh", "en"])
def test_nothing_sized_yet_says_what_it_needs_in_the_users_language(planner, language):
    with pytest.raises(NeedMissing) as raised:
        make_proposal(planner, NOT_SIZED[language])
    message = raised.value.message(language)
    assert ("模型" in message and "任务" in message) if language == "zh" else ("model" in message and "task" in message)


def test_the_chat_phrases_ask_for_the_proposal_and_a_question_about_proposals_does_not():
    assert is_proposal_command("生成采购方案") and is_proposal_command("Make this a proposal, please")
    assert not is_proposal_command("What should a procurement proposal for a GPU cluster of 64 H100 cards include in its budget section?")
    assert not is_proposal_command("How much memory does Qwen2.5-72B need?")


# the sections


def test_recommendation_and_two_alternatives_with_whole_configuration_prices(proposals):
    p = proposals["zh"]
    assert len(p.options) == 3
    assert all(o["purchase_cost"] for o in p.options)
    assert not p.over_budget


def test_each_option_has_a_memory_bar_that_fits_under_its_capacity(proposals):
    bars = proposals["en"].memory
    assert len(bars) == 3
    assert all(0 < bar.total_gb <= bar.capacity_gb for bar in bars)
    assert all(abs(sum(v for _, v in bar.parts) - bar.total_gb) / bar.total_gb < 0.05 for bar in bars)


def test_serving_speed_falls_as_concurrency_grows_and_training_gets_a_time_curve(proposals, planner):
    speed = proposals["en"].speed
    assert speed is not None and 50 in speed.concurrency
    assert speed.per_user[0] > speed.per_user[-1]
    training = make_proposal(planner, TRAINING_EN)
    assert training.speed is None and training.training is not None
    assert training.training.deadline_days == 5
    assert training.training.days[0] > training.training.days[-1]  # more GPUs, fewer days


def test_rent_or_buy_has_a_payback_month_and_three_sensitive_inputs(proposals):
    p = proposals["en"]
    assert p.tco is not None and p.tco.break_even_month is not None
    assert len(p.tco.sensitivities) >= 3


def test_a_china_only_proposal_is_worked_against_the_dated_china_rent(planner):
    """facts15 added dated mainland rents for the domestic parts (CMIS Daily, 2026-09): the part recommended first is
    weighed against its China lease tier, not left without a rent-or-buy."""
    p = make_proposal(planner, SERVING_CNY)
    assert p.tco is not None and p.tco_error is None
    assert p.tco.rent_tier == "china" and p.tco.currency == "CNY"


def test_power_space_and_every_price_carry_figures_and_sources(proposals):
    p = proposals["en"]
    assert p.facility is not None and p.facility.total_kw > p.facility.gpu_kw > 0
    assert p.prices and all(price.date and price.source for price in p.prices)
    assert all(f.url.startswith("https://") for f in p.figures if f.url)
    assert any(f.title for f in p.figures)


def test_a_budget_nothing_fits_still_gives_a_proposal_with_the_nearest_options(planner):
    p = make_proposal(planner, OVER_BUDGET_EN)
    assert p.over_budget and p.options
    assert "risk_over_budget" in p.risks
    text = render(p, "markdown", images="none").content.decode()
    assert phrase("over_budget", "en") in text


def test_facility_arithmetic_from_board_power_rack_height_and_rack_power():
    hgx = facility_needs(FacilityRequest(gpu_tdp_w=700, gpus=8, units=1, units_height_u=8, server_power_factor=1.8, rack_power_kw=10))
    assert hgx.gpu_kw == pytest.approx(5.6) and hgx.total_kw == pytest.approx(10.08)
    assert hgx.rack_units == 8 and hgx.racks == 2  # 10.08 kW is more than one 10 kW rack supplies
    mac = facility_needs(FacilityRequest(gpu_tdp_w=200, gpus=1, units_height_u=None))
    assert mac.racks is None and mac.notes
    with pytest.raises(AdvisorError) as raised:
        facility_needs(FacilityRequest(gpu_tdp_w=700, gpus=0, units_height_u=8))
    assert raised.value.zh and raised.value.en


# the formats


@pytest.mark.parametrize("language", ["zh", "en"])
def test_pdf_text_has_the_recommendation_the_payback_month_and_the_headings(proposals, language):
    from pypdf import PdfReader

    p = proposals[language]
    made = render(p, "pdf")
    assert made.content.startswith(b"%PDF") and made.media_type == "application/pdf"
    text = pdf_text(made.content)
    top_gpu = p.options[0]["gpu_name"].split()[-2]  # "H800" of "NVIDIA H800 SXM"
    assert top_gpu in text
    month = str(p.tco.break_even_month)
    if language == "zh":
        assert "推荐" in text and "1. 需求" in text and "5. 租用还是自购" in text and "附录" in text
        assert f"第 {month} 个月回本" in text
    else:
        assert "Recommended" in text and "1. The need" in text
        assert f"month {month}" in text
    attached = PdfReader(io.BytesIO(made.content)).attachments["proposal.json"][0]
    assert json.loads(attached)["inputs"]["message"] == p.inputs.message


@pytest.mark.parametrize("language", ["zh", "en"])
def test_html_is_self_contained_with_inline_charts_and_its_inputs(proposals, language):
    html = render(proposals[language], "html").content.decode()
    assert not REMOTE_REFERENCE.search(html), REMOTE_REFERENCE.search(html)
    assert "<link" not in html and "url(" not in html and "@import" not in html
    assert html.count('src="data:image/png;base64,') >= 3  # memory, speed, rent or buy
    inputs = json.loads(re.search(r'id="proposal-inputs">(.*?)</script>', html, re.DOTALL).group(1))
    assert inputs["inputs"]["language"] == language
    assert (phrase("h_need", language)) in html


def test_html_keeps_a_script_tag_in_the_question_inert_and_its_inputs_whole(planner, tmp_path):
    question = "Serve Qwen2.5-7B for 5 users </script><script>alert(1)</script>"
    html = render(make_proposal(planner, question), "html").content.decode()
    assert "<script>alert(1)" not in html and html.count("</script>") == 1
    page = tmp_path / "page.html"
    page.write_text(html, encoding="utf-8")
    assert embedded_inputs(page)["inputs"]["message"] == question


@pytest.mark.parametrize("language", ["zh", "en"])
def test_markdown_renders_in_a_commonmark_renderer_with_its_charts(proposals, language):
    made = render(proposals[language], "markdown", images="files", stem="plan")
    text = made.content.decode()
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert phrase("title", language) in headings and phrase("h_tco", language) in headings
    images = [c.attrs["src"] for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "image"]
    assert sorted(images) == sorted(made.images) and all(name.startswith("plan-") for name in images)
    assert all(png.startswith(b"\x89PNG") for png in made.images.values())


def test_rebuild_from_the_embedded_inputs_says_what_changed(proposals, planner, tmp_path):
    p = proposals["en"]
    page = tmp_path / "old.html"
    page.write_bytes(render(p, "html").content)
    embedded = embedded_inputs(page)
    embedded["inputs"]["built_on"] = "2025-01-01"
    embedded["figures"]["payback_month"] = 99  # as if prices were different then
    rebuilt, changes = rebuild(planner, embedded)
    assert rebuilt.options[0]["config_label"] == p.options[0]["config_label"]
    assert "2025-01-01" in changes[0]
    assert any("99" in line and str(p.tco.break_even_month) in line for line in changes[1:])
    unchanged = rebuild(planner, p.embedded())[1]
    assert unchanged[1:] == [phrase("diff_none", "en")]


def test_a_file_without_proposal_inputs_is_refused_in_both_languages(tmp_path):
    stray = tmp_path / "notes.json"
    stray.write_text('{"hello": 1}')
    with pytest.raises(AdvisorError) as raised:
        embedded_inputs(stray)
    assert raised.value.code == "not_a_proposal" and "方案" in raised.value.zh
