"""The Slack bot: answers @mentions and DMs in their thread, and the `/gpu <question>` command.

Run it with ``python -m advisor.interfaces.slack``: Socket Mode when ``SLACK_APP_TOKEN`` is set
(no public URL needed), otherwise an HTTP endpoint at ``/slack/events`` on ``ADVISOR_HOST``/
``ADVISOR_PORT`` whose requests Bolt verifies with ``SLACK_SIGNING_SECRET``.
The Bolt app is only ever built by ``create_slack_app``: constructing it calls Slack's
``auth.test``, which must not happen at import time.
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from pydantic import BaseModel, SecretStr
from slack_bolt import App
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from starlette.concurrency import run_in_threadpool

from advisor.config import ConfigError, Settings
from advisor.contract import AdvisorResponse, ChatTurn, Language
from advisor.deps import shared_registry
from advisor.interfaces.door_text import TEXT
from advisor.interfaces.slack_format import MESSAGE_LIMIT, escape, slack_to_plain, split_message, to_mrkdwn
from advisor.language import detect_language
from advisor.registry import Registry

SLACK_TIMEOUT_S = 15  # every Web API call (post, update, history) gives up after this; the retry handlers may try again

if TYPE_CHECKING:  # the agent stack is heavy; only run() needs it, via build_advisor
    from advisor.service import Advisor

log = logging.getLogger(__name__)

# Thread context: enough earlier turns for follow-ups ("and what if it were QLoRA?"), bounded so a long
# thread cannot blow up the prompt or the Slack call.
HISTORY_FETCH = 50
HISTORY_TURNS = 12
TURN_CHARS = 8000
# response_url accepts five messages; threads get the same cap so one answer never floods a channel.
MAX_MESSAGES = 5
# Message subtypes that are still a person talking; edits, joins, deletions and bot posts are not.
HUMAN_SUBTYPES = frozenset({"thread_broadcast", "file_share"})
HELP_WORDS = frozenset(TEXT.entry("slack.help_words"))

THINKING = TEXT.entry("slack.thinking")
FAILED = TEXT.entry("slack.failed")
TRUNCATED = TEXT.entry("slack.truncated")


class SlackSettings(BaseModel):
    bot_token: SecretStr
    signing_secret: SecretStr | None = None
    app_token: SecretStr | None = None

    @property
    def socket_mode(self) -> bool:
        return self.app_token is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SlackSettings:
        env = os.environ if env is None else env
        bot = env.get("SLACK_BOT_TOKEN", "").strip()
        app = env.get("SLACK_APP_TOKEN", "").strip()
        secret = env.get("SLACK_SIGNING_SECRET", "").strip()
        if not bot:
            raise ConfigError("SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token (xoxb-…) from your Slack app's OAuth & Permissions page.")
        if not bot.startswith("xoxb-"):
            raise ConfigError("SLACK_BOT_TOKEN must be a bot token starting with 'xoxb-'.")
        if app and not app.startswith("xapp-"):
            raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with 'xapp-' (Basic Information → App-Level Tokens, scope connections:write).")
        if not app and not secret:
            raise ConfigError("Set SLACK_APP_TOKEN (xapp-…) for Socket Mode, or SLACK_SIGNING_SECRET (Basic Information → Signing Secret) for HTTP events mode.")
        return cls(bot_token=SecretStr(bot), signing_secret=SecretStr(secret) if secret else None, app_token=SecretStr(app) if app else None)


class WriteSafeConnectionRetryHandler(ConnectionErrorRetryHandler):
    """Retries a dropped connection only for reads: a `chat.*` write may already have reached Slack,
    and sending it again would post the message twice. (A 429 is different: Slack rejected the call,
    so ``RateLimitErrorRetryHandler`` may safely resend it after Retry-After.)"""

    def _can_retry(self, *, state, request, response=None, error=None) -> bool:
        method = urlsplit(request.url).path.rsplit("/", 1)[-1]
        return not method.startswith("chat.") and super()._can_retry(state=state, request=request, response=response, error=error)


def configure_retries(client: WebClient) -> WebClient:
    """Put the rate-limit and write-safe connection retry handlers on ``client`` (Bolt copies them per request)."""
    others = [h for h in client.retry_handlers if not isinstance(h, (ConnectionErrorRetryHandler, RateLimitErrorRetryHandler))]
    client.retry_handlers = [WriteSafeConnectionRetryHandler(), RateLimitErrorRetryHandler(max_retry_count=2), *others]
    return client


class RecentMessages:
    """Remembers (channel, ts) pairs so a redelivered event (Slack retries after 3 s) is answered once."""

    def __init__(self, size: int = 2048):
        self.size = size
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, channel: str, ts: str) -> bool:
        with self._lock:
            if (channel, ts) in self._seen:
                return False
            self._seen[(channel, ts)] = None
            if len(self._seen) > self.size:
                self._seen.popitem(last=False)
            return True


def usage_help(registry: Registry) -> str:
    """Bilingual `/gpu` help listing what the tools can do, straight from the registry."""
    tools = [f"• `{name}` — {escape(registry.spec(name).summary_en)} / {escape(registry.spec(name).summary_zh)}" for name in registry.names()]
    return "\n".join(
        [
            *TEXT.entry("slack.usage_head"),
            *tools,
            *TEXT.entry("slack.usage_tail"),
        ]
    )


DETAILS_HEADING = TEXT.entry("slack.details_heading")


def render_response(response: AdvisorResponse, max_messages: int = MAX_MESSAGES) -> list[str]:
    """The answer as mrkdwn messages in its thread: the verdict first, then its details (formula tables,
    defaults, sources) as the next replies; converted, split, capped."""
    first = response.summary or response.answer
    messages = split_message(to_mrkdwn(first)) or [escape(FAILED[response.language])]
    if response.summary and response.details:
        messages += split_message(DETAILS_HEADING[response.language] + "\n" + to_mrkdwn(response.details))
    if len(messages) > max_messages:
        note = TRUNCATED[response.language]
        last = split_message(messages[max_messages - 1], MESSAGE_LIMIT - len(note) - 1)[0]
        messages = [*messages[: max_messages - 1], f"{last}\n{note}"]
    return messages


PROPOSAL_ACTION = "make_proposal"
PROPOSAL_BUTTON = TEXT.entry("slack.proposal_button")
PROPOSAL_TITLE = TEXT.entry("slack.proposal_title")


def proposal_blocks(text: str, language: Language) -> list[dict]:
    """The message as a section, then the button that turns the thread into a proposal."""
    button = {"type": "button", "action_id": PROPOSAL_ACTION, "text": {"type": "plain_text", "text": PROPOSAL_BUTTON[language]}, "value": "pdf"}
    return [{"type": "section", "text": {"type": "mrkdwn", "text": text}}, {"type": "actions", "elements": [button]}]


class SlackBot:
    """The listeners, holding the advisor and the de-duplication memory they share."""

    def __init__(self, advisor: Advisor, registry: Registry):
        self.advisor = advisor
        self.registry = registry
        self.recent = RecentMessages()

    def register(self, app: App) -> None:
        app.event("app_mention")(self.on_mention)
        app.event("message")(self.on_message)
        # The command is acknowledged at once (Slack allows 3 s); the answer follows via response_url.
        app.command("/gpu")(ack=self.ack_command, lazy=[self.answer_command])
        # The proposal button under a calculated answer: acknowledged at once, the PDF uploaded into the thread.
        app.action(PROPOSAL_ACTION)(ack=self.ack_action, lazy=[self.send_proposal])

    def on_mention(self, event: dict, client: WebClient, context) -> None:
        if event.get("bot_id"):
            return
        self._reply_in_thread(event, client, context)

    def on_message(self, event: dict, client: WebClient, context) -> None:
        # Channel messages reach us only as app_mention; here we want direct messages from people.
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("subtype") not in HUMAN_SUBTYPES | {None}:
            return
        self._reply_in_thread(event, client, context)

    def _reply_in_thread(self, event: dict, client: WebClient, context) -> None:
        channel, ts = event["channel"], event["ts"]
        if not self.recent.first_time(channel, ts):
            return
        thread_ts = event.get("thread_ts") or ts
        question = slack_to_plain(event.get("text", ""))
        if question.lower() in HELP_WORDS:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=usage_help(self.registry))
            return
        history = thread_history(client, channel, event["thread_ts"], ts, context.bot_user_id, context.bot_id) if event.get("thread_ts") else []
        language = detect_language(question)
        placeholder = client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=THINKING[language], unfurl_links=False)
        messages, calculated = self._respond(question, history, language)
        # Under an answer that calculated something, its last part carries the proposal button: render_response split
        # every part to fit a section block (MESSAGE_LIMIT), so the button always has its part.
        offer = {"blocks": proposal_blocks(messages[-1], language)} if calculated else {}
        # The first part replaces the placeholder: editing is idempotent, so even a retried update cannot duplicate it.
        client.chat_update(channel=channel, ts=placeholder["ts"], text=messages[0], **(offer if len(messages) == 1 else {}))
        for index, text in enumerate(messages[1:], start=2):
            extra = offer if index == len(messages) else {}
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text, unfurl_links=False, unfurl_media=False, **extra)

    def ack_command(self, ack, command: dict) -> None:
        question = slack_to_plain(command.get("text", ""))
        if question.lower() in HELP_WORDS:
            ack(text=usage_help(self.registry))
        else:
            ack(text=THINKING[detect_language(question)])

    def answer_command(self, command: dict, respond) -> None:
        question = slack_to_plain(command.get("text", ""))
        if question.lower() in HELP_WORDS:
            return
        # in_channel: Slack shows the user's `/gpu …` line above the answer, so the question needs no echo.
        for text in self._answer(question, [], detect_language(question)):
            respond(text=text, response_type="in_channel", replace_original=False, unfurl_links=False)

    def _answer(self, question: str, history: list[ChatTurn], language: Language) -> list[str]:
        return self._respond(question, history, language)[0]

    def _respond(self, question: str, history: list[ChatTurn], language: Language) -> tuple[list[str], bool]:
        """The answer's messages, and whether it calculated something (then a proposal can be made of it)."""
        try:
            response = self.advisor.answer(question, history)
        except Exception:  # the user must hear back either way; the log keeps the traceback
            log.exception("Advisor failed to answer a Slack message")
            return [escape(FAILED[language])], False
        return render_response(response), any(call.error is None for call in response.tool_calls if call.name != "search_knowledge")

    def ack_action(self, ack) -> None:
        ack()

    def send_proposal(self, body: dict, client: WebClient, context) -> None:
        """The thread so far as a PDF proposal, uploaded into the thread; with nothing sized, what it needs."""
        channel = body["channel"]["id"]
        button = body["message"]
        thread_ts = button.get("thread_ts") or button["ts"]
        turns = thread_history(client, channel, thread_ts, button["ts"], context.bot_user_id, context.bot_id)
        asked = [i for i, turn in enumerate(turns) if turn.role == "user"]
        question = turns[asked[-1]].content if asked else ""
        language = detect_language(question) if question else "en"
        from advisor.proposal.need import NeedMissing  # matplotlib and fpdf2 load on the first click, not at start-up
        from advisor.proposal.service import make_proposal, render

        try:
            made = render(make_proposal(self.advisor.planner, question, turns[: asked[-1]] if asked else []), "pdf")
        except NeedMissing as exc:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=escape(exc.message(language)))
            return
        client.files_upload_v2(channel=channel, thread_ts=thread_ts, content=made.content, filename=made.filename,
                               title=PROPOSAL_TITLE[language])  # fmt: skip


def thread_history(client: WebClient, channel: str, thread_ts: str, before_ts: str, bot_user_id: str | None, bot_id: str | None) -> list[ChatTurn]:
    """Earlier messages of the thread as chat turns: ours are the assistant, people are the user, other bots are skipped."""
    try:
        replies = client.conversations_replies(channel=channel, ts=thread_ts, latest=before_ts, inclusive=False, limit=HISTORY_FETCH)
    except SlackApiError as exc:  # e.g. missing channels:history scope: answer without context rather than not at all
        log.warning("Could not read thread history: %s", exc.response.get("error"))
        return []
    turns: list[ChatTurn] = []
    for message in replies.get("messages", []):
        if float(message.get("ts", 0)) >= float(before_ts):
            continue
        ours = bool(bot_user_id and message.get("user") == bot_user_id) or bool(bot_id and message.get("bot_id") == bot_id)
        if not ours and (message.get("bot_id") or message.get("subtype") not in HUMAN_SUBTYPES | {None}):
            continue
        text = message.get("text", "")
        content = slack_to_plain(text)[:TURN_CHARS]
        if not content or text in THINKING.values():
            continue
        role = "assistant" if ours else "user"
        if turns and turns[-1].role == role:  # an answer split over several messages is one turn
            turns[-1] = ChatTurn(role=role, content=f"{turns[-1].content}\n{content}"[:TURN_CHARS])
        else:
            turns.append(ChatTurn(role=role, content=content))
    return turns[-HISTORY_TURNS:]


def create_slack_app(settings: SlackSettings, advisor: Advisor, client: WebClient | None = None, *, process_before_response: bool = False, registry: Registry | None = None) -> App:
    """Build the Bolt app (this calls Slack's auth.test through ``client``).

    ``client`` lets tests point the Web API at a local server; its retry handlers are configured here.
    Keep ``process_before_response`` False for HTTP and Socket Mode so events are acknowledged before
    the (slow) answer is computed; True runs listeners before the HTTP response (FaaS, tests).
    """
    client = client or WebClient(timeout=SLACK_TIMEOUT_S)
    client.token = client.token or settings.bot_token.get_secret_value()
    configure_retries(client)
    if settings.signing_secret is None and not settings.socket_mode:
        raise ConfigError("SLACK_SIGNING_SECRET is required when SLACK_APP_TOKEN is not set (HTTP events mode).")
    # Without a secret (Socket Mode only) use a random one, so no HTTP request could ever pass verification.
    secret = settings.signing_secret.get_secret_value() if settings.signing_secret else secrets.token_hex(32)
    app = App(name="gpu-advisor", client=client, signing_secret=secret, process_before_response=process_before_response)
    SlackBot(advisor, registry or shared_registry()).register(app)
    return app


def create_events_api(app: App) -> FastAPI:
    """A small FastAPI app serving Slack's HTTP events and commands at /slack/events."""
    api = FastAPI(title="GPU Advisor Slack events", docs_url=None, redoc_url=None, openapi_url=None)

    @api.post("/slack/events")
    async def slack_events(request: Request):
        bolt_request = to_bolt_request(request, await request.body())
        # dispatch blocks (auth.test, listeners when process_before_response): keep it off the event loop.
        return to_starlette_response(await run_in_threadpool(app.dispatch, bolt_request))

    @api.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return api


def run(settings: Settings, slack: SlackSettings | None = None) -> None:
    """Start the bot: Socket Mode if SLACK_APP_TOKEN is set, else HTTP events on settings.host:port."""
    from advisor.deps import build_advisor

    slack = slack or SlackSettings.from_env()
    app = create_slack_app(slack, build_advisor(settings))
    if slack.socket_mode:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        SocketModeHandler(app, slack.app_token.get_secret_value()).start()
    else:
        import uvicorn

        uvicorn.run(create_events_api(app), host=settings.host, port=settings.port)


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    try:
        run(Settings.from_env())
    except ConfigError as exc:
        sys.exit(f"gpu-advisor slack: {exc}")


if __name__ == "__main__":
    main()
