"""Run the embed page's own Markdown renderer (static/markdown.js) under node, as the browser would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from advisor.interfaces.embed import STATIC_DIR


def render_with_markdown_js(texts: list[str]) -> list[str]:
    """HTML for each of ``texts``; skips the test without node, except in CI where the check must run."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is required in CI to test the embed page's Markdown renderer")
        pytest.skip("node not installed")
    script = (
        f"const md = require({json.dumps(str(STATIC_DIR / 'markdown.js'))});"
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map((text) => md.renderMarkdown(text))));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(texts), capture_output=True, text=True, timeout=30, check=True)
    return json.loads(done.stdout)
