"""Every data file's sources are one model (knowledge/sources.py): the same URL and date rules everywhere."""

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from knowledge.sources import DatedQuote, DatedSource, QuotedSource, Source, TitledSource

KNOWLEDGE = Path(__file__).resolve().parents[1] / "knowledge"


def _classes_with_a_url_field(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(isinstance(item, ast.AnnAssign) and getattr(item.target, "id", "") == "url" for item in node.body)
    ]


def test_only_the_sources_module_declares_a_page_address():
    declared = {path.name: names for path in KNOWLEDGE.glob("*.py") if (names := _classes_with_a_url_field(path))}
    assert declared == {"sources.py": ["Source"]}


@pytest.mark.parametrize("model", [Source, TitledSource, DatedSource, QuotedSource, DatedQuote])
def test_an_address_that_is_not_a_web_page_is_refused(model):
    with pytest.raises(ValidationError):
        model(url="file:///etc/passwd", title="A vendor page", says="the figure", date="2026-03")


def test_each_variant_requires_what_its_readers_show():
    with pytest.raises(ValidationError):
        DatedSource(url="https://example.org/a", title="A vendor page")  # no date: the answer could not say how current
    with pytest.raises(ValidationError):
        QuotedSource(url="https://example.org/a", title="A vendor page")  # nothing said that supports the figure
    with pytest.raises(ValidationError):
        TitledSource(url="https://example.org/a", title="")
    with pytest.raises(ValidationError):
        DatedQuote(url="https://example.org/a", says="the figure", date="March 2026")
    assert DatedSource(url="https://example.org/a", title="A vendor page", date="2026-03").cited == "A vendor page (2026-03)"
    assert Source(url="https://example.org/a", title="A vendor page").cited == "A vendor page"
