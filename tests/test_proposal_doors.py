"""The doors to a proposal: the CLI command, POST /api/proposal, and the chat phrase."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from advisor.cli import EXIT_BAD_INPUT, main
from advisor.contract import ChatTurn
from advisor.interfaces.api import create_api
from advisor.proposal.wording import phrase
from tests.live_server import offline_settings, running_server

QUESTION = "Serve Qwen2.5-32B for 30 concurrent users"
QUESTION_ZH = "Qwen2.5-32B 给30个人同时用，用什么卡？"
TOKEN = "proposal-test-token-3c7e9a1f5b2d8e4a6c0f"


@pytest.fixture(scope="module")
def api(offline_advisor, tmp_path_factory):
    app = create_api(offline_settings(tmp_path_factory.mktemp("proposal-api")), offline_advisor)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


def test_cli_writes_markdown_with_its_charts_beside_it(offline_advisor, tmp_path, capsys):
    out = tmp_path / "plan.md"
    assert main(["proposal", QUESTION, "--format", "md", "--output", str(out)]) == 0
    assert out.read_text().startswith("# " + phrase("title", "en"))
    assert (tmp_path / "plan-memory.png").exists() and (tmp_path / "plan-tco.png").exists()


def test_cli_reads_history_and_language(offline_advisor, tmp_path):
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": QUESTION}, {"role": "assistant", "content": "ok"}]))
    out = tmp_path / "plan.html"
    assert main(["proposal", "生成采购方案", "--history", str(history), "--lang", "zh", "--format", "html", "--output", str(out)]) == 0
    assert phrase("h_need", "zh") in out.read_text()


def test_cli_says_what_a_proposal_needs_and_exits_2(offline_advisor, tmp_path, capsys):
    assert main(["proposal", "GPU 是什么？", "--format", "pdf", "--output", str(tmp_path / "x.pdf")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "proposal_needs_model" in err and "模型" in err
    assert not (tmp_path / "x.pdf").exists()


def test_cli_rebuilds_from_a_proposal_and_reports_changes(offline_advisor, tmp_path, capsys):
    first = tmp_path / "first.html"
    assert main(["proposal", QUESTION, "--format", "html", "--output", str(first)]) == 0
    again = tmp_path / "again.pdf"
    assert main(["proposal", "--from", str(first), "--format", "pdf", "--output", str(again)]) == 0
    assert again.read_bytes().startswith(b"%PDF")
    assert phrase("diff_none", "en") in capsys.readouterr().out  # same day, same catalog: nothing moved


@pytest.mark.parametrize(
    ("fmt", "media", "magic"),
    [("pdf", "application/pdf", b"%PDF"), ("html", "text/html", b"<!DOCTYPE html>"), ("markdown", "text/markdown", b"# ")],
)
def test_api_returns_the_file_with_its_content_type(api, fmt, media, magic):
    response = api.post("/api/proposal", json={"message": QUESTION_ZH, "format": fmt})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith(media)
    assert response.content.startswith(magic)
    assert "attachment" in response.headers["content-disposition"]


def test_api_language_overrides_the_questions(api):
    response = api.post("/api/proposal", json={"message": QUESTION_ZH, "format": "markdown", "language": "en"})
    assert phrase("h_need", "en") in response.text


def test_api_without_a_sized_need_is_a_bilingual_422_with_a_request_id(api):
    response = api.post("/api/proposal", json={"message": "你好", "history": [], "format": "pdf"})
    assert response.status_code == 422
    body = response.json()
    assert body["error"]["code"] == "proposal_needs_model" and "模型" in body["error"]["zh"] and "model" in body["error"]["en"]
    assert body["request_id"]


def test_api_refuses_an_unknown_format(api):
    response = api.post("/api/proposal", json={"message": QUESTION, "format": "docx"})
    assert response.status_code == 422 and response.json()["error"]["zh"]


def test_api_proposal_needs_the_same_token_as_chat(offline_advisor, tmp_path):
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN))
    with running_server(create_api(settings, offline_advisor)) as url, httpx.Client(base_url=url, timeout=120) as client:
        assert client.post("/api/proposal", json={"message": QUESTION}).status_code == 401
        allowed = client.post("/api/proposal", json={"message": QUESTION}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert allowed.status_code == 200


@pytest.mark.parametrize(("command", "language"), [("生成采购方案", "zh"), ("make this a proposal", "en")])
def test_chat_phrase_answers_with_the_proposal_of_the_conversation(offline_advisor, command, language):
    history = [ChatTurn(role="user", content=QUESTION), ChatTurn(role="assistant", content="...")]
    response = offline_advisor.answer(command, history)
    assert response.language == language
    assert response.answer.startswith(phrase("chat_ready", language))
    assert phrase("h_tco", language) in response.answer


def test_chat_phrase_with_nothing_sized_asks_for_a_model(offline_advisor):
    response = offline_advisor.answer("生成采购方案", [])
    assert "模型" in response.answer and "Traceback" not in response.answer


def test_web_buttons_give_a_file_of_the_conversation_or_nothing_with_a_warning(offline_advisor):
    from advisor.interfaces.web_proposal import proposal_download

    turns = [{"role": "user", "content": QUESTION_ZH}, {"role": "assistant", "content": "..."}]
    path = proposal_download(offline_advisor, turns, "zh", fmt="pdf")
    assert path.endswith(".pdf") and Path(path).read_bytes().startswith(b"%PDF")
    page = proposal_download(offline_advisor, turns, "zh", fmt="html")
    assert phrase("h_need", "zh") in Path(page).read_text(encoding="utf-8")
    assert proposal_download(offline_advisor, [], "en", fmt="pdf") is None


def test_embed_page_offers_the_proposal_and_its_route_answers(api):
    page = api.get("/embed?lang=zh").text
    assert "下载采购方案" in page and "/api/embed/proposal" in page
    response = api.post("/api/embed/proposal", json={"message": QUESTION, "format": "pdf"})
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
