"""The settings tab in headless Chromium: paste prices, see them in force and used by this page's rent-or-buy
calculator; a second browser (another session) still gets the catalog's; a bad paste keeps the text and says
which line to fix; clearing goes back to the catalog.

Screenshots go to ``test-artifacts/``. In CI (CI=true) a missing Chromium is a failure, not a skip.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.test_browser import ARTIFACTS, CHROMIUM_ARGS, TIMEOUT_MS, chromium, server_url  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CLOUD_RATE = "0.77"  # an H100 rent no catalog offer has
PASTE = f'gpus:\n  h100-sxm:\n    cloud: {{amount: {CLOUD_RATE}, currency: USD, date: 2026-11-04, source: "rate card RC-12"}}\n'
BAD_PASTE = "gpus:\n  h100-sxm:\n    cloud: {amount: 0.77, currency: EUR, date: 2026-11-04, source: rate card}\n"


@pytest.fixture(scope="module")
def browser(chromium):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


def _open(browser, url: str, locale: str):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}, locale=locale).new_page()  # a context of its own: a new session
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url, wait_until="domcontentloaded")
    return page


def _rent_or_buy(page):
    """The rent-or-buy calculator's result (retried by ``expect`` until it shows what is asserted)."""
    page.get_by_role("tab", name=re.compile("租还是买|Rent vs buy")).click()
    panel = page.get_by_role("tabpanel").filter(has=page.get_by_role("button", name=re.compile("^(计算|Calculate)$")))
    panel.get_by_role("button", name=re.compile("^(计算|Calculate)$")).click()
    result = panel.locator(".calc-result").first
    expect(result).to_contain_text(re.compile(r"\$\d"))
    return result


def test_pasted_prices_are_used_by_this_session_only(browser, server_url):  # noqa: F811
    mine = _open(browser, server_url, "zh-CN")
    mine.get_by_role("tab", name=re.compile("设置|Settings")).click()
    mine.locator("#settings-prices textarea").fill(PASTE)
    mine.locator("#settings-apply").click()
    status = mine.locator("#settings-status")
    expect(status).to_contain_text("已生效")
    expect(status).to_contain_text(f"gpus → h100-sxm → cloud: {CLOUD_RATE} USD (2026-11-04)")
    mine.screenshot(path=str(ARTIFACTS / "settings-prices-in-force.png"), full_page=True)
    expect(_rent_or_buy(mine)).to_contain_text(f"${CLOUD_RATE}")

    other = _open(browser, server_url, "en-US")  # someone else, at the same time
    expect(_rent_or_buy(other)).not_to_contain_text(f"${CLOUD_RATE}")
    other.get_by_role("tab", name=re.compile("设置|Settings")).click()
    expect(other.locator("#settings-status")).to_contain_text("目录价格")  # nothing of theirs in force
    other.context.close()

    mine.get_by_role("tab", name=re.compile("设置|Settings")).click()
    mine.locator("#settings-clear").click()
    expect(mine.locator("#settings-status")).to_contain_text("目录价格")
    expect(mine.locator("#settings-prices textarea")).to_have_value("")
    expect(_rent_or_buy(mine)).not_to_contain_text(f"${CLOUD_RATE}")  # waits for the new result to replace the old
    mine.context.close()


def test_a_bad_paste_stays_in_the_box_and_names_the_line_in_the_pages_language(browser, server_url):  # noqa: F811
    page = _open(browser, server_url, "en-US")
    page.get_by_text("English", exact=True).click()
    page.get_by_role("tab", name=re.compile("Settings")).click()
    box = page.locator("#settings-prices textarea")
    box.fill(BAD_PASTE)
    page.locator("#settings-apply").click()
    status = page.locator("#settings-status")
    expect(status).to_contain_text("not applied")
    expect(status).to_contain_text("line 3")
    expect(status).to_contain_text("USD or CNY")
    expect(box).to_have_value(BAD_PASTE)
    page.screenshot(path=str(ARTIFACTS / "settings-prices-refused.png"), full_page=True)
    page.get_by_text("中文", exact=True).click()
    expect(page.locator("#settings-apply")).to_have_text("使用这些价格")
    page.locator("#settings-apply").click()
    expect(status).to_contain_text("第 3 行")
    expect(status).to_contain_text("USD 或 CNY")
    page.context.close()
