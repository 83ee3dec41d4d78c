"""The locked-down server in headless Chromium: sign in with the token and chat in the Gradio UI; the
wiki embed with no key tells the reader (in both languages) and disables the form; with its key it answers."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect, sync_playwright
from pydantic import SecretStr

from tests.live_server import offline_settings, running_server
from tests.test_browser import ARTIFACTS, CHROMIUM_ARGS, GPU_NAMED, QUESTION, TIMEOUT_MS, chromium  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TOKEN = "browser-tok-71c2a9-4e8f0b3d6a2c5e9f1b7d"
EMBED_KEY = "browser-embed-5e0b"


@pytest.fixture(scope="module")
def locked_url(chromium, offline_advisor, tmp_path_factory):  # noqa: F811
    from advisor.interfaces.server import create_app

    offline_advisor.answer(QUESTION)  # the first answer loads the planner's models: not on the browser's clock
    settings = offline_settings(tmp_path_factory.mktemp("browser-locked"), api_token=SecretStr(TOKEN), embed_key=SecretStr(EMBED_KEY))
    with running_server(create_app(settings, offline_advisor)) as url:
        yield url


@pytest.fixture(scope="module")
def browser(chromium, locked_url):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


def test_signing_in_with_the_token_opens_the_chat(browser, locked_url):
    page = browser.new_page(viewport={"width": 1280, "height": 1000}, locale="zh-CN")
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(locked_url + "/", wait_until="domcontentloaded")
    expect(page).to_have_url(re.compile(r"/login\?next=/$"))
    page.locator("#token").fill("not-the-token")
    page.get_by_role("button").click()
    expect(page.get_by_role("alert")).to_contain_text("That token is not right")
    page.locator("#token").fill(TOKEN)
    page.get_by_role("button").click()
    expect(page.locator("#advisor-send")).to_be_visible()
    page.locator("#advisor-message textarea").fill(QUESTION)
    page.locator("#advisor-send").click()
    expect(page.locator("#advisor-chat .message.bot, #advisor-chat [data-testid='bot']").last).to_contain_text(GPU_NAMED)
    page.screenshot(path=str(ARTIFACTS / "signed-in-chat.png"), full_page=True)
    page.close()


def test_the_embed_without_a_key_tells_the_reader_and_with_it_answers(browser, locked_url):
    page = browser.new_page(viewport={"width": 420, "height": 640})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(locked_url + "/embed?lang=en", wait_until="domcontentloaded")
    notice = page.locator(".msg.error")
    expect(notice).to_contain_text("editor")
    expect(notice).to_contain_text("维护者")
    expect(page.locator("#message")).to_be_disabled()
    page.screenshot(path=str(ARTIFACTS / "embed-no-key.png"))

    page.goto(locked_url + "/embed?lang=en#key=wrong", wait_until="domcontentloaded")
    page.reload(wait_until="domcontentloaded")  # a fragment-only change does not reload the page
    expect(page.locator(".msg.error")).to_contain_text("editor")

    page.goto(locked_url + f"/embed?lang=zh#key={EMBED_KEY}", wait_until="domcontentloaded")
    page.reload(wait_until="domcontentloaded")
    page.locator("#message").fill(QUESTION)
    page.locator("#message").press("Enter")
    expect(page.locator(".msg.assistant").last).to_contain_text(GPU_NAMED)
    expect(page.locator(".msg.error")).to_have_count(0)
    page.close()
