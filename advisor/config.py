"""Settings from ``ADVISOR_*`` environment variables; every error names the variable to fix."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, SecretStr

REPO_ROOT = Path(__file__).resolve().parent.parent


class ConfigError(RuntimeError):
    """A setting is missing or malformed; the message says which variable to set."""


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


class Settings(BaseModel):
    llm: LLMSettings | None = None
    data_dir: Path = REPO_ROOT / ".advisor-data"
    chroma_url: str | None = None
    embedding_model: str | None = None
    host: str = "127.0.0.1"
    port: int = 7860
    embed_origins: list[str] = Field(default_factory=list)
    api_token: SecretStr | None = None
    rate_limit_per_minute: int = 120
    max_body_bytes: int = 1_000_000

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
            )
        origins = [o.strip() for o in env.get("ADVISOR_EMBED_ORIGINS", "").split(",") if o.strip()]
        token = env.get("ADVISOR_API_TOKEN", "").strip()
        return cls(
            llm=llm,
            data_dir=Path(env.get("ADVISOR_DATA_DIR") or REPO_ROOT / ".advisor-data"),
            chroma_url=env.get("ADVISOR_CHROMA_URL", "").strip() or None,
            embedding_model=env.get("ADVISOR_EMBEDDING_MODEL", "").strip() or None,
            host=env.get("ADVISOR_HOST", "").strip() or "127.0.0.1",
            port=_number(env, "ADVISOR_PORT", 7860, int, minimum=1),
            embed_origins=origins,
            api_token=SecretStr(token) if token else None,
            rate_limit_per_minute=_number(env, "ADVISOR_RATE_LIMIT", 120, int),
            max_body_bytes=_number(env, "ADVISOR_MAX_BODY_BYTES", 1_000_000, int, minimum=1024),
        )
