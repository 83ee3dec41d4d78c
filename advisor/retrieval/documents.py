"""Guidance docs (knowledge/docs/{en,zh}/<id>.md) cut at `## ` headings into searchable chunks."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import DATA_DIR

DOCS_DIR = DATA_DIR / "docs"
Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")
FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.DOTALL)
HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)
URL = re.compile(r"https?://[^\s,;)\]]+")


class DocumentError(ValueError):
    """A guidance doc cannot be parsed; the message names the file."""


def chunk_key(doc_id: str, language: str, position: int) -> str:
    return f"{doc_id}/{language}/{position}"


class Chunk(BaseModel):
    """One section of one doc in one language: the unit that is embedded and ranked."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    language: Language
    position: int = Field(ge=0, description="Section order within the doc.")
    section: str
    text: str
    title_en: str
    title_zh: str
    sources: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def chunk_id(self) -> str:
        return chunk_key(self.doc_id, self.language, self.position)

    def title(self, language: Language | None = None) -> str:
        return self.title_zh if (language or self.language) == "zh" else self.title_en

    def embedding_text(self) -> str:
        """What the embedder sees: the doc title and heading give a short section its topic."""
        return f"{self.title()}. {self.section}. {self.text}"

    def lexical_text(self) -> str:
        return f"{self.title()} {self.section} {' '.join(self.tags)} {self.text}"

    def content_hash(self) -> str:
        """Changes exactly when the embedding would change, so unchanged chunks are not re-embedded."""
        return hashlib.sha256(self.embedding_text().encode("utf-8")).hexdigest()[:32]


def source_links(text: str) -> list[str]:
    """URLs inside a free-text source note; the note itself when it names no URL."""
    links = [url.rstrip(".") for url in URL.findall(text)]
    return links or ([text.strip()] if text.strip() else [])


def parse_doc(path: Path, language: Language) -> list[Chunk]:
    raw = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    match = FRONT_MATTER.match(raw)
    if not match:
        raise DocumentError(f"{path}: must start with a '---' YAML front-matter block")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise DocumentError(f"{path}: front matter is not valid YAML: {exc}") from exc
    missing = [key for key in ("id", "title_en", "title_zh") if not meta.get(key)]
    if missing:
        raise DocumentError(f"{path}: front matter lacks {', '.join(missing)}")
    if meta["id"] != path.stem:
        raise DocumentError(f"{path}: front-matter id {meta['id']!r} differs from the file name")
    sources = tuple(link for item in meta.get("sources") or [] for link in source_links(str(item)))
    body = match.group(2)
    headings = list(HEADING.finditer(body))
    if not headings:
        raise DocumentError(f"{path}: no '## ' sections to index")
    chunks = []
    for position, heading in enumerate(headings):
        end = headings[position + 1].start() if position + 1 < len(headings) else len(body)
        text = body[heading.end() : end].strip()
        if not text:
            continue
        chunks.append(
            Chunk(
                doc_id=meta["id"],
                language=language,
                position=position,
                section=heading.group(1),
                text=text,
                title_en=str(meta["title_en"]),
                title_zh=str(meta["title_zh"]),
                sources=sources,
                tags=tuple(str(tag) for tag in meta.get("tags") or []),
            )
        )
    return chunks


def load_guidance(docs_dir: Path = DOCS_DIR) -> list[Chunk]:
    chunks: list[Chunk] = []
    for language in LANGUAGES:
        for path in sorted((docs_dir / language).glob("*.md")):
            chunks.extend(parse_doc(path, language))
    return chunks
