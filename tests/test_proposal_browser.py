"""A proposal page in headless Chromium: it asks the network for nothing and its charts draw."""

from __future__ import annotations

import io

import pytest

from advisor.proposal.service import make_proposal, render
from tests.test_browser import ARTIFACTS, CHROMIUM_ARGS, chromium  # noqa: F401  (the fixture, shared)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
QUESTIONS = {"zh": "Qwen2.5-72B 部署给50个人同时用，预算30万美元", "en": "Serve Qwen2.5-32B for 30 concurrent users"}


@pytest.mark.parametrize("language", ["zh", "en"])
def test_proposal_page_loads_nothing_from_outside_and_shows_its_charts(offline_advisor, chromium, tmp_path, language):
    from PIL import Image, ImageStat
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / f"proposal-{language}.html"
    page_file.write_bytes(render(make_proposal(offline_advisor.planner, QUESTIONS[language]), "html").content)
    requested: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1100, "height": 1400})
        page.on("request", lambda request: requested.append(request.url))
        page.goto(page_file.as_uri(), wait_until="load")
        drawn = page.evaluate("[...document.images].map(i => i.complete && i.naturalWidth > 0)")
        screenshot = page.screenshot(full_page=True)
        browser.close()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"proposal-{language}.png").write_bytes(screenshot)
    outside = [url for url in requested if not url.startswith(("file://", "data:"))]
    assert outside == []
    assert len(drawn) >= 3 and all(drawn)
    image = Image.open(io.BytesIO(screenshot)).convert("L")
    assert max(ImageStat.Stat(image).stddev) > 20  # not a blank page: text and charts on white
