"""The Slack bot end to end: signed Bolt requests in, real Web API calls out to a loopback fake."""

from __future__ import annotations

import json
import re
import time
from urllib.error import URLError
from urllib.parse import urlencode

import pytest
import yaml
from slack_bolt import BoltRequest
from slack_sdk import WebClient
from slack_sdk.http_retry import HttpRequest, RateLimitErrorRetryHandler, RetryState
from slack_sdk.signature import SignatureVerifier
from starlette.testclient import TestClient

from advisor.config import REPO_ROOT, ConfigError
from advisor.contract import AdvisorResponse, Source, ToolCall
from advisor.deps import shared_registry
from advisor.interfaces.slack import (
    DETAILS_HEADING,
    MAX_MESSAGES,
    PROPOSAL_ACTION,
    THINKING,
    SlackSettings,
    WriteSafeConnectionRetryHandler,
    create_events_api,
    create_slack_app,
    render_response,
)
from advisor.interfaces.slack_format import MESSAGE_LIMIT
from tests.slack_web_api import BOT_ID, BOT_USER_ID, TEAM_ID, FakeSlackWebAPI

SECRET = "test-signing-secret"
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def no_slack_env(monkeypatch):
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)


class RecordingAdvisor:
    """Passes every question to the real advisor and keeps what the bot sent it."""

    def __init__(self, inner):
        self.inner = inner
        self.asked: list[tuple[str, list]] = []

    def answer(self, message, history=()):
        self.asked.append((message, list(history)))
        return self.inner.answer(message, history)


class FixedAnswerAdvisor:
    """For the Slack-side behaviour that needs an answer of a given shape (e.g. very long)."""

    def __init__(self, response: AdvisorResponse):
        self.response = response

    def answer(self, message, history=()):
        return self.response


@pytest.fixture
def slack_api():
    with FakeSlackWebAPI() as api:
        yield api


def make_app(advisor, api: FakeSlackWebAPI):
    settings = SlackSettings(bot_token="xoxb-test", signing_secret=SECRET)
    return create_slack_app(settings, advisor, WebClient(base_url=api.base_url), process_before_response=True)


def signed(body: str, content_type: str, secret: str = SECRET, timestamp: int | None = None, **extra_headers) -> dict:
    ts = str(timestamp or int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    headers = {"content-type": [content_type], "x-slack-signature": [signature], "x-slack-request-timestamp": [ts]}
    return headers | {k.replace("_", "-"): [v] for k, v in extra_headers.items()}


def event_body(event: dict, event_id: str = "Ev1") -> str:
    return json.dumps({"type": "event_callback", "team_id": TEAM_ID, "api_app_id": "A1", "event": event, "event_id": event_id, "event_time": 1})


def dispatch_event(app, event: dict, **headers):
    body = event_body(event)
    return app.dispatch(BoltRequest(body=body, headers=signed(body, "application/json", **headers)))


def dispatch_command(app, api: FakeSlackWebAPI, text: str):
    form = {"command": "/gpu", "text": text, "team_id": TEAM_ID, "channel_id": "C1", "user_id": "U1", "response_url": api.response_url, "trigger_id": "1.2.3"}
    body = urlencode(form)
    return app.dispatch(BoltRequest(body=body, headers=signed(body, "application/x-www-form-urlencoded")))


def mention(text: str, ts: str = "1700000000.000100", **fields) -> dict:
    return {"type": "app_mention", "user": "U1", "text": f"<@{BOT_USER_ID}> {text}", "ts": ts, "channel": "C1", **fields}


def dm(text: str, ts: str = "1700000000.000200", **fields) -> dict:
    return {"type": "message", "channel_type": "im", "user": "U1", "text": text, "ts": ts, "channel": "D1", **fields}


def test_mention_gets_a_threaded_answer_in_the_question_language(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    response = dispatch_event(app, mention("对比 H100 SXM 和 A100 80GB，哪个显存带宽更高？"))

    assert response.status == 200
    assert slack_api.accepted("auth.test"), "Bolt verifies the token with auth.test"
    placeholder, *details = slack_api.accepted("chat.postMessage")
    assert placeholder == {"channel": "C1", "thread_ts": "1700000000.000100", "text": THINKING["zh"], "unfurl_links": False, "team_id": TEAM_ID}
    # The verdict replaces the placeholder; formula tables, defaults and sources follow as thread replies.
    assert all(d["thread_ts"] == "1700000000.000100" for d in details)
    assert not details or details[0]["text"].startswith(DETAILS_HEADING["zh"])
    [update] = slack_api.accepted("chat.update")
    assert update["channel"] == "C1" and update["ts"].startswith("2000000000.")
    assert HAN.search(update["text"]) and "H100" in update["text"]
    assert "**" not in update["text"] and "|---" not in update["text"]


def test_dm_reply_in_thread_uses_earlier_thread_messages_as_history(offline_advisor, slack_api):
    recorder = RecordingAdvisor(offline_advisor)
    app = make_app(recorder, slack_api)
    parent = "1700000000.000001"
    slack_api.threads[parent] = [
        {"type": "message", "user": "U1", "text": "Compare the H100 SXM with the A100 80GB &amp; L40S", "ts": parent},
        {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "text": "The *H100 SXM* has the most bandwidth.", "ts": "1700000000.000002"},
        {"type": "message", "bot_id": "B0OTHER", "text": "deploy bot: build green", "ts": "1700000000.000003"},
        {"type": "message", "subtype": "channel_join", "user": "U2", "text": "<@U2> has joined", "ts": "1700000000.000004"},
    ]
    dispatch_event(app, dm("What about the power draw of the H100 SXM?", ts="1700000000.000005", thread_ts=parent))

    [replies_call] = slack_api.accepted("conversations.replies")
    assert replies_call["channel"] == "D1" and replies_call["ts"] == parent and int(replies_call["limit"]) <= 50
    [(question, history)] = recorder.asked
    assert question == "What about the power draw of the H100 SXM?"
    assert [(turn.role, turn.content) for turn in history] == [
        ("user", "Compare the H100 SXM with the A100 80GB & L40S"),
        ("assistant", "The *H100 SXM* has the most bandwidth."),
    ]
    placeholder, *details = slack_api.accepted("chat.postMessage")
    assert placeholder["thread_ts"] == parent and placeholder["text"] == THINKING["en"]
    assert all(d["thread_ts"] == parent for d in details)
    [update] = slack_api.accepted("chat.update")
    assert update["text"] and not HAN.search(update["text"])


def test_top_level_dm_is_answered_in_its_own_thread_without_reading_history(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    dispatch_event(app, dm("Compare RTX 4090 and L40S"))
    assert slack_api.accepted("conversations.replies") == []
    assert slack_api.accepted("chat.postMessage")[0]["thread_ts"] == "1700000000.000200"
    assert slack_api.accepted("chat.update")


@pytest.mark.parametrize(
    "event",
    [
        dm("echo of my own answer", user=BOT_USER_ID, bot_id=BOT_ID),
        dm("another bot talking", bot_id="B0OTHER"),
        dm("edited", subtype="message_changed"),
        {"type": "message", "subtype": "channel_join", "user": "U2", "text": "joined", "ts": "1.0", "channel": "C1", "channel_type": "channel"},
        {"type": "message", "channel_type": "channel", "user": "U1", "text": "plain channel chatter", "ts": "1.1", "channel": "C1"},
    ],
    ids=["self", "other-bot", "edit", "join", "channel-without-mention"],
)
def test_bot_messages_and_subtypes_are_ignored(offline_advisor, slack_api, event):
    app = make_app(offline_advisor, slack_api)
    assert dispatch_event(app, event).status == 200
    assert slack_api.accepted("chat.postMessage") == [] and slack_api.accepted("chat.update") == []


def test_bad_or_stale_signature_is_rejected_before_any_work(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    body = event_body(mention("Compare H100 and A100"))
    forged = app.dispatch(BoltRequest(body=body, headers=signed(body, "application/json", secret="not-the-secret")))
    stale = app.dispatch(BoltRequest(body=body, headers=signed(body, "application/json", timestamp=int(time.time()) - 3600)))
    assert forged.status == 401 and stale.status == 401
    assert slack_api.accepted("chat.postMessage") == []


def test_redelivered_event_is_answered_once(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    event = mention("Compare H100 and A100")
    dispatch_event(app, event)
    dispatch_event(app, event, x_slack_retry_num="1", x_slack_retry_reason="http_timeout")
    assert [post["text"] for post in slack_api.accepted("chat.postMessage")].count(THINKING["en"]) == 1
    assert len(slack_api.accepted("chat.update")) == 1


def test_rate_limited_post_is_retried_and_posted_once(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    slack_api.rate_limit_once.add("chat.postMessage")
    dispatch_event(app, mention("Compare H100 and A100"))
    attempts = [call.status for call in slack_api.calls if call.method == "chat.postMessage"]
    assert attempts[:2] == [429, 200] and 429 not in attempts[2:]  # the placeholder retried once; detail replies after it
    assert [post["text"] for post in slack_api.accepted("chat.postMessage")].count(THINKING["en"]) == 1
    assert len(slack_api.accepted("chat.update")) == 1


def test_long_answer_is_split_into_thread_messages(slack_api):
    lines = [f"{i}. Step {i}: check `nvidia-smi` output & power limits on node {i}." for i in range(400)]
    long = AdvisorResponse(answer="\n".join(lines), language="en", mode="offline")
    app = make_app(FixedAnswerAdvisor(long), slack_api)
    dispatch_event(app, mention("long please"))

    first = slack_api.accepted("chat.update")[0]["text"]
    rest = [post["text"] for post in slack_api.accepted("chat.postMessage")[1:]]
    assert rest and all(post["thread_ts"] == "1700000000.000100" for post in slack_api.accepted("chat.postMessage"))
    messages = [first, *rest]
    assert len(messages) == MAX_MESSAGES and all(len(m) <= MESSAGE_LIMIT for m in messages)
    sent_lines = "\n".join(messages).splitlines()
    assert sent_lines[: len(sent_lines) - 1] == [line.replace("&", "&amp;") for line in lines[: len(sent_lines) - 1]]
    assert "shortened" in messages[-1]


@pytest.mark.parametrize("calculated", [True, False])
def test_every_part_fits_a_section_block_and_a_calculated_answer_keeps_its_button(slack_api, calculated):
    """Details a little over a section block's 3,000 characters: split in the one place every part is split, whether
    or not the answer calculated something, so the last part can always carry the proposal button."""
    details = "\n".join(f"- default {i}: a setting the estimate assumed, with its source and date ({i})" for i in range(45))
    assert MESSAGE_LIMIT < len(details) < 3500
    calls = [ToolCall(name="estimate_memory", args={}, result={"ok": True})] if calculated else []
    response = AdvisorResponse(answer="**Verdict**: fits.\n\n" + details, summary="**Verdict**: fits.", details=details, language="en", mode="offline", tool_calls=calls)
    app = make_app(FixedAnswerAdvisor(response), slack_api)
    dispatch_event(app, mention("does it fit?"))

    parts = [slack_api.accepted("chat.update")[0], *slack_api.accepted("chat.postMessage")[1:]]
    assert MESSAGE_LIMIT == 3000 and len(parts) >= 3 and all(len(part["text"]) <= MESSAGE_LIMIT for part in parts)
    assert ("blocks" in parts[-1]) is calculated and not any("blocks" in part for part in parts[:-1])


def test_gpu_command_acks_at_once_then_answers_via_response_url(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    started = time.monotonic()
    ack = dispatch_command(app, slack_api, "Compare H100 SXM and A100 80GB")
    assert ack.status == 200 and time.monotonic() - started < 3
    assert THINKING["en"] in ack.body

    posted = slack_api.wait_for(lambda: slack_api.accepted("response_url"))
    assert posted[0]["response_type"] == "in_channel" and "H100" in posted[0]["text"]


def test_gpu_command_without_text_shows_bilingual_usage_from_the_registry(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    ack = dispatch_command(app, slack_api, "  ")
    registry = shared_registry()
    for name in registry.names():
        assert name in ack.body
        assert registry.spec(name).summary_zh in ack.body
    assert "/gpu" in ack.body and "用法" in ack.body


def test_render_response_shows_the_answers_own_sources_once_as_slack_links():
    answer = "See the **OOM** guide.\n\n**参考资料**\n- [OOM guide · Fixes](https://pytorch.org/docs/stable/notes/cuda.html?a=1&b=2)\n- A100 (NVIDIA A100 datasheet)"
    response = AdvisorResponse(
        answer=answer,
        language="zh",
        mode="offline",
        sources=[
            Source(doc_id="oom", title="OOM guide", section="Fixes", urls=["https://pytorch.org/docs/stable/notes/cuda.html?a=1&b=2"]),
            Source(doc_id="gpu:a100", title="A100", urls=["NVIDIA A100 datasheet"]),
        ],
    )
    [message] = render_response(response)
    assert "• <https://pytorch.org/docs/stable/notes/cuda.html?a=1&amp;b=2|OOM guide · Fixes>" in message
    assert "• A100 (NVIDIA A100 datasheet)" in message
    assert message.count("OOM guide") == 1 and message.count("*参考资料*") == 1 and "来源" not in message


def test_events_endpoint_over_http_checks_signatures_and_answers_url_verification(offline_advisor, slack_api):
    client = TestClient(create_events_api(make_app(offline_advisor, slack_api)))
    body = json.dumps({"type": "url_verification", "token": "t", "challenge": "abc123"})
    ok = client.post("/slack/events", content=body, headers={k: v[0] for k, v in signed(body, "application/json").items()})
    forged = client.post("/slack/events", content=body, headers={k: v[0] for k, v in signed(body, "application/json", secret="x").items()})
    assert ok.status_code == 200 and ok.json() == {"challenge": "abc123"}
    assert forged.status_code == 401


def test_retries_resend_rate_limited_calls_but_never_a_write_after_a_dropped_connection(offline_advisor, slack_api):
    client = WebClient(base_url=slack_api.base_url)
    make_app_client = create_slack_app(SlackSettings(bot_token="xoxb-test", signing_secret=SECRET), offline_advisor, client)
    assert make_app_client.client is client and client.token == "xoxb-test"
    assert any(isinstance(h, RateLimitErrorRetryHandler) for h in client.retry_handlers)
    handler = next(h for h in client.retry_handlers if isinstance(h, WriteSafeConnectionRetryHandler))

    def retried(method: str) -> bool:
        request = HttpRequest(method="POST", url=f"{slack_api.base_url}{method}", headers={})
        return handler.can_retry(state=RetryState(), request=request, error=URLError("connection reset"))

    assert retried("conversations.replies") and retried("auth.test")
    assert not retried("chat.postMessage") and not retried("chat.update")


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": "xoxp-user-token", "SLACK_SIGNING_SECRET": "s"}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-wrong"}, "SLACK_APP_TOKEN"),
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ],
)
def test_slack_settings_errors_name_the_variable(env, variable):
    with pytest.raises(ConfigError, match=variable):
        SlackSettings.from_env(env)


def test_slack_settings_pick_socket_or_http_mode():
    socket = SlackSettings.from_env({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"})
    http = SlackSettings.from_env({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s3cret"})
    assert socket.socket_mode and not http.socket_mode
    assert http.signing_secret.get_secret_value() == "s3cret"


def test_manifest_requests_what_the_listeners_need():
    manifest = yaml.safe_load((REPO_ROOT / "slack-manifest.yaml").read_text(encoding="utf-8"))
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {"app_mentions:read", "chat:write", "im:history", "im:read", "im:write", "commands", "channels:history"} <= scopes
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {"app_mention", "message.im"}
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == ["/gpu"]
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert "files:write" in scopes and manifest["settings"]["interactivity"]["is_enabled"] is True  # the proposal button uploads a PDF


def action_body(thread_ts: str, button_ts: str) -> str:
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U1"}, "api_app_id": "A1", "trigger_id": "1.2.3",
        "channel": {"id": "C1"}, "container": {"type": "message", "message_ts": button_ts, "channel_id": "C1"},
        "message": {"type": "message", "ts": button_ts, "thread_ts": thread_ts, "user": BOT_USER_ID, "bot_id": BOT_ID, "text": "..."},
        "actions": [{"type": "button", "action_id": PROPOSAL_ACTION, "value": "pdf", "block_id": "b1", "action_ts": "1"}],
    }  # fmt: skip
    return urlencode({"payload": json.dumps(payload)})


def dispatch_action(app, thread_ts: str, button_ts: str):
    body = action_body(thread_ts, button_ts)
    return app.dispatch(BoltRequest(body=body, headers=signed(body, "application/x-www-form-urlencoded")))


def test_a_calculated_answer_carries_the_proposal_button_in_its_language(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    dispatch_event(app, mention("Qwen2.5-32B 给30个人同时用，用什么卡？"))
    last = (slack_api.accepted("chat.postMessage")[1:] or slack_api.accepted("chat.update"))[-1]  # the answer's last part
    blocks = json.loads(last["blocks"]) if isinstance(last["blocks"], str) else last["blocks"]
    [button] = blocks[-1]["elements"]
    assert button["action_id"] == PROPOSAL_ACTION and HAN.search(button["text"]["text"])


def test_the_proposal_button_uploads_a_pdf_of_the_thread(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    parent = "1700000000.000001"
    slack_api.threads[parent] = [
        {"type": "message", "user": "U1", "text": "Serve Qwen2.5-32B for 30 concurrent users", "ts": parent},
        {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "text": "Recommended: 2× L40S", "ts": "1700000000.000002"},
    ]
    assert dispatch_action(app, parent, "1700000000.000002").status == 200
    slack_api.wait_for(lambda: slack_api.accepted("files.completeUploadExternal"))
    [asked] = slack_api.accepted("files.getUploadURLExternal")
    assert asked["filename"] == "proposal.pdf"
    [upload] = slack_api.accepted("upload")
    assert b"%PDF" in upload["body"]
    [done] = slack_api.accepted("files.completeUploadExternal")
    assert done["channel_id"] == "C1" and done["thread_ts"] == parent


def test_the_proposal_button_with_nothing_sized_says_what_it_needs(offline_advisor, slack_api):
    app = make_app(offline_advisor, slack_api)
    parent = "1700000000.000001"
    slack_api.threads[parent] = [{"type": "message", "user": "U1", "text": "显卡是什么？", "ts": parent}]
    dispatch_action(app, parent, "1700000000.000002")
    [said] = slack_api.wait_for(lambda: slack_api.accepted("chat.postMessage"))
    assert "模型" in said["text"] and said["thread_ts"] == parent
    assert slack_api.accepted("files.getUploadURLExternal") == []
