"""`gpu-advisor mcp` with the official SDK's client: over stdio (a real subprocess) and streamable HTTP
(a real server on 127.0.0.1 with the API token): list the tools, call estimate_memory, and get clear,
bilingual refusals for bad input, oversized arguments, an unknown tool and a missing token."""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import SecretStr

from advisor.deps import shared_registry
from advisor.interfaces.mcp_server import http_app
from tests.live_server import offline_settings, running_server

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "mcp-tok-3b9e61f2-7c5a1d9e4f2b8a6c0d3e"
MEMORY_ARGS = {"model": "llama-3.1-8b", "precision": "bf16", "context": 8192}
CJK = "\u4e00-\u9fff"


async def round_trip(client: Client, limit_at_http: bool = False) -> None:
    """What every transport must do: the registry's tools with its schemas, results, bilingual refusals."""
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    registry = shared_registry()
    assert set(listed) == set(registry.names()) and "search_knowledge" in listed
    spec = registry.spec("estimate_memory")
    assert listed["estimate_memory"].input_schema == spec.request_model.model_json_schema()
    assert listed["estimate_memory"].output_schema == spec.result_model.model_json_schema()

    result = await client.call_tool("estimate_memory", MEMORY_ARGS)
    assert not result.is_error
    expected = registry.run("estimate_memory", MEMORY_ARGS).model_dump(mode="json")
    assert result.structured_content == expected and expected["total_per_gpu_gb"] > 16

    bad = await client.call_tool("estimate_memory", {"model": "no-such-model-9000", "precision": "bf16"})
    assert bad.is_error and bad.structured_content["error"]["code"] == "unknown_model"
    english, chinese = bad.content[0].text.split("\n", 1)
    assert "no-such-model-9000" in english and re.search(f"[{CJK}]", chinese)

    huge = {"text": "CUDA out of memory " * 60_000}
    if limit_at_http:  # over HTTP the body limit refuses it before any tool runs, as a JSON-RPC error
        with pytest.raises(MCPError, match="ADVISOR_MAX_BODY_BYTES") as refused:
            await client.call_tool("diagnose", huge)
        assert "请求体超过上限" in str(refused.value)
    else:
        result = await client.call_tool("diagnose", huge)
        assert result.is_error and result.structured_content["error"]["code"] == "arguments_too_large"
        assert "ADVISOR_MAX_BODY_BYTES" in result.content[0].text

    with pytest.raises(MCPError) as unknown:
        await client.call_tool("delete_everything", {})
    assert "Unknown tool" in str(unknown.value) and "没有名为" in str(unknown.value) and "estimate_memory" in str(unknown.value)


def test_stdio_round_trip_with_the_sdk_client(tmp_path):
    env = {key: os.environ[key] for key in ("PATH", "HOME", "ADVISOR_DATA_DIR") if key in os.environ}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ADVISOR_MAX_BODY_BYTES="200000", PYTHONPATH=str(ROOT))
    params = StdioServerParameters(command=sys.executable, args=["-m", "advisor.cli", "mcp"], env=env, cwd=str(ROOT))

    async def main():
        with (tmp_path / "server.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await round_trip(client)

    anyio.run(main)


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def connect(url: str, token: str | None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http))


def test_streamable_http_needs_the_api_token_and_then_round_trips(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    settings = offline_settings(tmp_path, api_token=SecretStr(TOKEN), max_body_bytes=200_000)
    with running_server(http_app(settings)) as url:

        async def main():
            async with connect(url, TOKEN) as client:
                await round_trip(client, limit_at_http=True)
            for token in (None, TOKEN + "x"):
                with pytest.raises(BaseException) as caught:  # the SDK may wrap it in an exception group
                    async with connect(url, token) as client:
                        await client.list_tools()
                assert any(isinstance(e, MCPError) and "ADVISOR_API_TOKEN" in str(e) and "令牌" in str(e) for e in leaves(caught.value))

        anyio.run(main)
        refused = httpx2.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={"Accept": "application/json"})
    assert refused.status_code == 401 and refused.json()["error"]["data"]["code"] == "unauthorized"
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert TOKEN not in logged
