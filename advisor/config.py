"""Settings from ``ADVISOR_*`` environment variables; every error names the variable to fix."""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, SecretStr, field_validator

from knowledge.wording import Wording

REPO_ROOT = Path(__file__).resolve().parent.parent


class ConfigError(RuntimeError):
    """A setting is missing or malformed; the message says which variable to set (and, where given, in Chinese too)."""

    def __init__(self, message: str, zh: str | None = None):
        super().__init__(message if zh is None else f"{message}\n{zh}")
        self.en, self.zh = message, zh


TEXT = Wording(Path(__file__).with_name("config_text.yaml"))


def _bilingual(key: str, **values: Any) -> ConfigError:
    return ConfigError(*TEXT.both(key, **values))


MIN_TOKEN_CHARS = 32
MIN_DISTINCT_CHARS = 10
# Values people paste when asked for "a token": refused whatever their length.
OBVIOUS_TOKENS = {"changeme", "change-me", "password", "secret", "token", "admin", "test", "example", "default", "letmein"}
GENERATE_TOKEN = 'python3 -c "import secrets; print(secrets.token_urlsafe(32))"'


def check_token_strength(token: str, name: str = "ADVISOR_API_TOKEN") -> None:
    """Refuse a token short or obvious enough to guess: the server must not start with it."""
    residue = token.lower()
    for word in OBVIOUS_TOKENS:
        residue = residue.replace(word, "")
    # Long but not random ("x" * 40, "changeme" five times, "1234…"): too few different characters left.
    repeats_a_short_run = any(token == (token[:size] * len(token))[: len(token)] for size in range(1, 13))
    if len(token) < MIN_TOKEN_CHARS or len(set(residue)) < MIN_DISTINCT_CHARS or repeats_a_short_run:
        raise _bilingual("weak_token", name=name, length=len(token), minimum=MIN_TOKEN_CHARS, command=GENERATE_TOKEN)


def _number(env: Mapping[str, str], name: str, default: float, cast=float, minimum: float = 0):
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = cast(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a valid number; set {name} to e.g. {default}.") from None
    if value < minimum:
        raise ConfigError(f"{name} must be ≥ {minimum}, got {raw}.")
    return value


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return allowed[0]
    if raw not in allowed:
        raise ConfigError(f"{name}={raw!r} is not one of {', '.join(allowed)}.")
    return raw


def _json_object(env: Mapping[str, str], name: str) -> dict[str, Any]:
    raw = env.get(name, "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{name} is not valid JSON ({exc.msg}); set it to a JSON object, e.g. {{\"enable_thinking\": false}}.") from None
    if not isinstance(value, dict):
        raise ConfigError(f"{name} must be a JSON object, e.g. {{\"enable_thinking\": false}}; got {raw!r}.")
    return value


TOOL_MODES = ("auto", "native", "text")


def _prices_file(env: Mapping[str, str]) -> Path | None:
    """``ADVISOR_PRICES``: the company's prices file, validated now so nothing starts half-configured."""
    from knowledge.bilingual import AdvisorError
    from knowledge.catalog import catalog_gpu_id, shipped_gpu_ids
    from knowledge.price_overrides import ENV_VAR, load_price_overrides

    raw = env.get(ENV_VAR, "").strip()
    if not raw:
        return None
    path = Path(raw).expanduser()
    try:
        load_price_overrides(path, catalog_gpu_id, shipped_gpu_ids())
    except AdvisorError as exc:
        raise ConfigError(f"{ENV_VAR}: {exc.en}\n{ENV_VAR}：{exc.zh}") from None
    return path


def _networks(env: Mapping[str, str], name: str) -> list[str]:
    """Comma-separated addresses or CIDRs, e.g. ``127.0.0.1,10.0.0.0/8``; returned normalised."""
    networks = []
    for entry in (e.strip() for e in env.get(name, "").split(",")):
        if not entry:
            continue
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise _bilingual("not_a_network", name=name, entry=entry) from None
        if network.prefixlen == 0:  # "every address is our proxy": anyone could pick the client address it is limited by
            raise _bilingual("trusts_every_address", name=name, entry=entry)
        networks.append(str(network))
    return networks


def _public_url(env: Mapping[str, str]) -> str | None:
    raw = env.get("ADVISOR_PUBLIC_URL", "").strip().rstrip("/")
    if not raw:
        return None
    if not raw.startswith(("http://", "https://")) or "?" in raw or "#" in raw:
        raise _bilingual("public_url", raw=raw)
    return raw


class LLMSettings(BaseModel):
    base_url: str
    model: str
    api_key: SecretStr
    timeout_s: float = 60.0
    max_retries: int = 2
    max_steps: int = Field(8, description="Upper bound on model↔tool round trips per answer.")
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific request fields merged into every request body."
    )
    deadline_s: float = Field(45.0, description="Wall-clock limit per answer: retries, Retry-After waits and tool rounds included.")
    max_tokens: int = Field(2048, description="max_tokens sent with every request (a client's smaller value wins).")
    tool_mode: str = Field("auto", description="auto: native tool calls, switching to text tool calls if the server rejects them.")
    breaker_failures: int = Field(3, description="Consecutive endpoint failures that open the circuit breaker.")
    breaker_cooldown_s: float = Field(30.0, description="How long an open breaker skips the endpoint.")


class Settings(BaseModel):
    llm: LLMSettings | None = None
    data_dir: Path = REPO_ROOT / ".advisor-data"
    chroma_url: str | None = None
    embedding_model: str | None = None
    host: str = "127.0.0.1"
    port: int = 7860
    embed_origins: list[str] = Field(default_factory=list)
    api_token: SecretStr | None = None
    embed_key: SecretStr | None = Field(None, description="Narrow key for /embed: chat only, its own rate limit, embed origins only.")
    rate_limit_per_minute: int = 120
    embed_rate_limit_per_minute: int = 20
    max_body_bytes: int = 1_000_000
    trusted_proxies: list[str] = Field(default_factory=list, description="CIDRs whose X-Forwarded-For/-Proto headers are believed.")
    chroma_timeout_s: float = Field(10.0, description="Upper bound on any one HTTP call to a Chroma server.")
    stream_keepalive_s: float = Field(15.0, description="Idle seconds before a streamed answer sends an SSE keep-alive comment.")
    prices_file: Path | None = Field(None, description="ADVISOR_PRICES: the company's own prices, checked at start-up.")
    public_url: str | None = Field(None, description="The address people open; the UI builds its links from it, never from a request's Host.")

    @field_validator("api_token")
    @classmethod
    def _strong_token(cls, token: SecretStr | None) -> SecretStr | None:
        if token is not None:
            check_token_strength(token.get_secret_value())
        return token

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        base_url = env.get("ADVISOR_LLM_BASE_URL", "").strip()
        llm = None
        if base_url:
            if not base_url.startswith(("http://", "https://")):
                raise ConfigError(f"ADVISOR_LLM_BASE_URL must start with http:// or https://, got {base_url!r}.")
            model = env.get("ADVISOR_LLM_MODEL", "").strip()
            if not model:
                raise ConfigError("ADVISOR_LLM_BASE_URL is set but ADVISOR_LLM_MODEL is not: set it to the model name the endpoint serves.")
            llm = LLMSettings(
                base_url=base_url,
                model=model,
                # Local servers (vLLM, Ollama) accept any key; the client library insists on one.
                api_key=SecretStr(env.get("ADVISOR_LLM_API_KEY", "") or "EMPTY"),
                timeout_s=_number(env, "ADVISOR_LLM_TIMEOUT", 60.0, minimum=1),
                max_retries=_number(env, "ADVISOR_LLM_MAX_RETRIES", 2, int),
                max_steps=_number(env, "ADVISOR_LLM_MAX_STEPS", 8, int, minimum=1),
                extra_body=_json_object(env, "ADVISOR_LLM_EXTRA_BODY"),
                deadline_s=_number(env, "ADVISOR_LLM_DEADLINE", 45.0, minimum=0.5),
                max_tokens=_number(env, "ADVISOR_LLM_MAX_TOKENS", 2048, int, minimum=64),
                tool_mode=_choice(env, "ADVISOR_LLM_TOOL_MODE", TOOL_MODES),
                breaker_failures=_number(env, "ADVISOR_LLM_BREAKER_FAILURES", 3, int, minimum=1),
                breaker_cooldown_s=_number(env, "ADVISOR_LLM_BREAKER_COOLDOWN", 30.0),
            )
        origins = [o.strip() for o in env.get("ADVISOR_EMBED_ORIGINS", "").split(",") if o.strip()]
        token = env.get("ADVISOR_API_TOKEN", "").strip()
        embed_key = env.get("ADVISOR_EMBED_KEY", "").strip()
        if embed_key and embed_key == token:
            raise ConfigError("ADVISOR_EMBED_KEY must differ from ADVISOR_API_TOKEN: the embed key sits in wiki pages; set a new random value.")
        return cls(
            llm=llm,
            data_dir=Path(env.get("ADVISOR_DATA_DIR") or REPO_ROOT / ".advisor-data"),
            chroma_url=env.get("ADVISOR_CHROMA_URL", "").strip() or None,
            embedding_model=env.get("ADVISOR_EMBEDDING_MODEL", "").strip() or None,
            host=env.get("ADVISOR_HOST", "").strip() or "127.0.0.1",
            port=_number(env, "ADVISOR_PORT", 7860, int, minimum=1),
            embed_origins=origins,
            api_token=SecretStr(token) if token else None,
            embed_key=SecretStr(embed_key) if embed_key else None,
            rate_limit_per_minute=_number(env, "ADVISOR_RATE_LIMIT", 120, int),
            embed_rate_limit_per_minute=_number(env, "ADVISOR_EMBED_RATE_LIMIT", 20, int),
            max_body_bytes=_number(env, "ADVISOR_MAX_BODY_BYTES", 1_000_000, int, minimum=1024),
            trusted_proxies=_networks(env, "ADVISOR_TRUSTED_PROXIES"),
            chroma_timeout_s=_number(env, "ADVISOR_CHROMA_TIMEOUT", 10.0, minimum=1),
            stream_keepalive_s=_number(env, "ADVISOR_STREAM_KEEPALIVE", 15.0, minimum=0.05),
            prices_file=_prices_file(env),
            public_url=_public_url(env),
        )
