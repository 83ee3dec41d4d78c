"""`gpu-advisor mcp`: every registry tool for MCP clients (Claude Desktop, Cursor, Cline, agents).

Built on the official ``mcp`` SDK's low-level server so each tool is offered with exactly the JSON
schemas the REST API publishes (the pydantic request and result models). Calls go through
``Registry.run`` like every other interface, so validation, bilingual errors and the NaN/overflow
guards are the same. Two transports:

* stdio (default): the client starts ``gpu-advisor mcp`` itself; nothing but protocol goes to stdout.
* streamable HTTP (``--http``): ``POST /mcp`` on ADVISOR_HOST:ADVISOR_PORT, behind the same
  ``ApiGuard`` as the web server — ADVISOR_API_TOKEN as a bearer token, the same rate limit, body
  limit and trusted proxies.

A tool's own refusal (unknown GPU, out-of-range numbers, arguments too large) is a result with
``isError`` and the message in English and Chinese, so the calling model can correct itself; an
unknown tool name is a protocol error (``-32602``) naming the real tools.
"""

from __future__ import annotations

import json
import logging
from importlib import metadata
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from advisor.config import Settings
from advisor.interfaces.door_text import TEXT, worded_error
from advisor.registry import Registry, UnknownToolError
from knowledge.bilingual import AdvisorError

log = logging.getLogger(__name__)
INSTRUCTIONS = " ".join(TEXT.pair("mcp_instructions"))


def _version() -> str:
    try:
        return metadata.version("gpu-advisor")
    except metadata.PackageNotFoundError:
        return "dev"


def tool_list(registry: Registry) -> list[types.Tool]:
    tools = []
    for name in registry.names():
        spec = registry.spec(name)
        tools.append(
            types.Tool(
                name=name,
                title=spec.summary_en,
                description=spec.description(),
                input_schema=spec.request_model.model_json_schema(),
                output_schema=spec.result_model.model_json_schema(),
            )
        )
    return tools


def error_result(error: AdvisorError) -> types.CallToolResult:
    text = f"{error.message('en')}\n{error.message('zh')}"
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content={"error": error.to_dict()}, is_error=True)


def arguments_too_large(limit: int) -> AdvisorError:
    return worded_error("arguments_too_large", limit=limit)


def build_server(registry: Registry, max_argument_bytes: int = 1_000_000) -> Server:
    tools = tool_list(registry)
    schemas = {tool.name: tool.input_schema for tool in tools}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            registry.spec(params.name)
        except UnknownToolError as error:
            raise MCPError(INVALID_PARAMS, f"{error.message('en')} / {error.message('zh')}", error.to_dict()) from None
        arguments: dict[str, Any] = params.arguments or {}
        if len(json.dumps(arguments, ensure_ascii=False, default=str).encode()) > max_argument_bytes:
            return error_result(arguments_too_large(max_argument_bytes))
        try:
            result = await anyio.to_thread.run_sync(registry.run, params.name, arguments)
        except AdvisorError as exc:
            return error_result(exc)
        except Exception:  # a tool bug: the caller gets a sentence, the log gets the trace
            log.exception("MCP call of %s failed", params.name)
            from advisor.registry import internal_error

            return error_result(internal_error(params.name))
        data = result.model_dump(mode="json")
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))], structured_content=data)

    return Server(
        "gpu-advisor",
        version=_version(),
        title=" · ".join(TEXT.pair("product_title")),
        instructions=INSTRUCTIONS,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def http_app(settings: Settings, registry: Registry | None = None):
    """The streamable-HTTP MCP endpoint at ``/mcp``, behind ``ApiGuard`` (token, rate limit, body limit)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from advisor.deps import shared_registry
    from advisor.interfaces.guards import ApiGuard

    server = build_server(registry or shared_registry(), settings.max_body_bytes)
    # A page on another host that a DNS name was re-pointed at this server (DNS rebinding) sends its
    # own Host: only the names this server is reached by are accepted, token or not.
    hosts, origins = reachable_as(settings)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)
    app = server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, host=settings.host,
        transport_security=security, max_request_body_size=settings.max_body_bytes,
    )  # fmt: skip
    app.add_middleware(ApiGuard, settings=settings)
    return app


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_BINDS = ("0.0.0.0", "::", "")


def reachable_as(settings: Settings) -> tuple[list[str], list[str]]:
    """Host headers (and browser origins) the MCP endpoint accepts: loopback, the bound address, and
    ADVISOR_PUBLIC_URL's host (set it when clients reach the server by a DNS name)."""
    from urllib.parse import urlsplit

    names = list(LOOPBACK_NAMES)
    if settings.host not in WILDCARD_BINDS:
        names.append(f"[{settings.host}]" if ":" in settings.host else settings.host)
    hosts = [f"{name}:*" for name in names] + list(names)
    origins = [f"{scheme}://{name}:*" for name in names for scheme in ("http", "https")]
    if settings.public_url:
        public = urlsplit(settings.public_url)
        hosts += [public.netloc, f"{public.hostname}:*"]
        origins.append(f"{public.scheme}://{public.netloc}")
    return hosts, origins


def serve_stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    from advisor.deps import shared_registry

    server = build_server(shared_registry(), settings.max_body_bytes)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def serve_http(settings: Settings, echo=print) -> None:
    import uvicorn

    from advisor.interfaces.access_log import log_config

    app = http_app(settings)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    echo(f"GPU Advisor MCP server on http://{host}:{settings.port}/mcp (streamable HTTP)")
    if settings.api_token is None and settings.host not in ("127.0.0.1", "localhost", "::1"):
        echo("Warning: ADVISOR_API_TOKEN is not set, so anyone who can reach this address can call the tools.")
    if settings.host in WILDCARD_BINDS and not settings.public_url:
        echo("Note: only clients that reach this server as 127.0.0.1/localhost are accepted; set ADVISOR_PUBLIC_URL to the address others use.")
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info", proxy_headers=False, log_config=log_config())
