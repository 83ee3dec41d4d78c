"""The real server in headless Chromium: ask in Chinese, get a GPU and a GB figure; run the memory and serving calculators, see charts.

Screenshots go to ``test-artifacts/``. In CI (CI=true) a missing Chromium is a failure, not a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from advisor.retrieval.chroma_server import free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
QUESTION = "我有一个70亿参数模型，该选什么卡？"
GPU_NAMED = re.compile(r"RTX|A100|H100|L40|4090|A10|L20")
GB_FIGURE = re.compile(r"\d+(\.\d+)?\s*(/\s*\d+\s*)?GB")
TIMEOUT_MS = 60_000  # the first answer loads the planner's models; plotly.js is loaded on first use


@pytest.fixture(scope="module")
def chromium() -> str:
    """The browser binary; checked before the server starts so a local skip is instant."""
    found = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if found:
        return found
    message = "Chromium is not installed: run `apt-get install -y chromium` (.ci/run does this)."
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def server_url(chromium) -> Iterator[str]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    import uvicorn

    from advisor.config import Settings
    from advisor.interfaces.server import create_app, warm_up

    port = free_port()
    # Offline mode (no LLM endpoint) regardless of the developer's environment.
    settings = Settings(host="127.0.0.1", port=port)
    # As `serve` does: index, embedder and catalogs are ready before the server starts, so the first
    # answer does not spend the browser's timeout building the session's fresh knowledge index.
    warm_up(settings, echo=lambda _: None)
    app = create_app(settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(chromium, server_url):
    ARTIFACTS.mkdir(exist_ok=True)
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000}, locale="zh-CN")
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server_url, wait_until="domcontentloaded")
        yield page
        browser.close()


def test_chat_answers_a_chinese_sizing_question_with_a_gpu_and_memory(page):
    page.locator("#advisor-message textarea").fill(QUESTION)
    page.locator("#advisor-send").click()
    chat = page.locator("#advisor-chat")
    expect(chat).to_contain_text(QUESTION)
    expect(chat.get_by_text("🔧 recommend_gpus").first).to_be_visible()
    answer = chat.locator(".message.bot, [data-testid='bot']").last
    expect(answer).to_contain_text(GPU_NAMED)
    expect(answer).to_contain_text(GB_FIGURE)
    page.screenshot(path=str(ARTIFACTS / "chat-answer.png"), full_page=True)
    chat.get_by_text("🔧 recommend_gpus").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "chat-tool-steps.png"), full_page=True)


def test_memory_calculator_draws_a_plotly_chart(page):
    page.get_by_role("tab", name=re.compile("显存估算|Memory")).click()
    panel = page.locator("#memory-plot")
    page.get_by_role("button", name=re.compile("^(计算|Calculate)$")).first.click()
    expect(panel.locator(".js-plotly-plot, svg.main-svg").first).to_be_visible()
    expect(page.locator("#memory-details")).to_contain_text("GB")
    page.screenshot(path=str(ARTIFACTS / "memory-calculator.png"), full_page=True)


def test_serving_calculator_draws_a_throughput_chart(page):
    page.get_by_role("tab", name=re.compile("推理速度|Serving speed")).click()
    page.get_by_role("button", name=re.compile("^(计算|Calculate)$")).first.click()
    expect(page.locator("#serving-plot").locator(".js-plotly-plot, svg.main-svg").first).to_be_visible()
    expect(page.locator("#serving-details")).to_contain_text("token/s")
    page.screenshot(path=str(ARTIFACTS / "serving-calculator.png"), full_page=True)


def test_language_toggle_relabels_the_page(page):
    page.get_by_text("English", exact=True).click()
    expect(page.get_by_role("tab", name=re.compile("Memory"))).to_be_visible()
    expect(page.locator("#advisor-send")).to_have_text("Send")
    page.get_by_text("中文", exact=True).click()
    expect(page.locator("#advisor-send")).to_have_text("发送")


def test_a_follow_up_in_the_chat_reruns_the_question_with_the_change(page):
    """The browser sends the conversation with each message: "利用率也就六成" re-runs the rent-or-buy table at 60%."""
    page.get_by_text("中文", exact=True).click()
    page.get_by_role("tab", name=re.compile("对话|Chat")).click()
    page.get_by_role("button", name=re.compile("^(新对话|New conversation)$")).click()
    chat = page.locator("#advisor-chat")
    answers = chat.locator(".message.bot, [data-testid='bot']")
    expect(answers).to_have_count(0)  # the new conversation is in place before anything is typed
    box = page.locator("#advisor-message textarea")
    # each message gets its own calculation; the follow-up also re-runs the one before, to say what its change did
    for calculations, message in ((1, "8卡H100租还是买划算？整机报价235万，云上每卡每小时15块，按三年算"), (3, "利用率也就六成")):
        box.fill(message)
        expect(box).to_have_value(message)
        page.locator("#advisor-send").click()
        expect(chat.get_by_text("🔧 compute_tco")).to_have_count(calculations)
    expect(answers.last).to_contain_text("60%")
    expect(answers.last).to_contain_text("¥")
    page.screenshot(path=str(ARTIFACTS / "chat-follow-up.png"), full_page=True)
