"""The REST API: chat, every registered tool, catalog listings, health, OpenAI-compatible chat, embed page.

Thin adapters only: chat goes to ``Advisor.answer`` and tools to ``Registry.run``. Handlers
that do real work are plain ``def`` so FastAPI runs them in its threadpool and a slow answer
never blocks the event loop. ``/healthz`` is the exception: it is async and probes on its own
small pool with a deadline, so it answers even when every chat thread is busy or stuck.
"""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request, Response
from fastapi.middleware.cors import CORSMiddleware

from advisor.config import Settings
from advisor.contract import AdvisorResponse
from advisor.deps import build_advisor, shared_registry
from advisor.events import AnswerOptions
from advisor.interfaces.api_models import ERROR_RESPONSES, ChatRequest, Health, ModelList, ProposalRequest, ToolInfo, ToolList
from advisor.interfaces.docs import install_docs
from advisor.interfaces.door_text import TEXT
from advisor.interfaces.embed import frame_origins, install_embed
from advisor.interfaces.guards import ApiGuard
from advisor.interfaces.health import IndexProbe, running_retriever
from advisor.interfaces.http_errors import install_error_handlers, request_id_of
from advisor.interfaces.openai_compat import openai_router
from advisor.interfaces.proposal_door import proposal_response
from advisor.interfaces.sessions import SessionSigner, install_login
from advisor.proposal.service import MEDIA_TYPES
from advisor.registry import Registry
from advisor.service import Advisor, answer_with, llm_health
from knowledge.catalog import load_catalog
from tools.gpu_specs import GpuFilter, GpuList

DESCRIPTION = TEXT.data["api_description"]
# /healthz probes here, never on the threadpool the chat handlers share: a full or stuck pool must not hide the answer.
HEALTH_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="healthz")
HEALTH_DEADLINE_S = 2.0
REMOTE_STORE_RECHECK_S = 10.0


def index_state(probe: IndexProbe):
    """The index state; a remote store this process searches is also pinged (at most every 10 s)."""
    retriever = running_retriever()
    if retriever is not None and getattr(retriever.store, "url", None):
        retriever.verify_store(max_age_s=REMOTE_STORE_RECHECK_S)
    return probe.state()


def _version() -> str:
    try:
        return metadata.version("gpu-advisor")
    except metadata.PackageNotFoundError:
        return "dev"


def _tool_endpoint(registry: Registry, name: str):
    """A handler whose body parameter is the tool's own request model, so OpenAPI shows its schema."""

    def call_tool(request):
        return registry.run(name, request)

    parameter = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=registry.spec(name).request_model)
    call_tool.__signature__ = inspect.Signature([parameter])
    call_tool.__name__ = f"tool_{name}"
    return call_tool


def tool_router(registry: Registry) -> APIRouter:
    router = APIRouter(prefix="/api/tools", tags=["tools"], responses=ERROR_RESPONSES)

    @router.get("", response_model=ToolList, summary="List tools with their JSON schemas")
    def list_tools() -> ToolList:
        return ToolList(
            tools=[
                ToolInfo(
                    name=spec.name,
                    summary_en=spec.summary_en,
                    summary_zh=spec.summary_zh,
                    endpoint=f"/api/tools/{spec.name}",
                    request_schema=spec.request_model.model_json_schema(),
                    result_schema=spec.result_model.model_json_schema(),
                )
                for spec in (registry.spec(n) for n in registry.names())
            ]
        )

    for name in registry.names():
        spec = registry.spec(name)
        router.add_api_route(
            f"/{name}",
            _tool_endpoint(registry, name),
            methods=["POST"],
            response_model=spec.result_model,
            summary=spec.summary_en,
            description=f"{spec.summary_en}\n\n{spec.summary_zh}",
        )

    @router.post("/{name}", include_in_schema=False)
    def unknown_tool(name: str):
        registry.spec(name)  # every registered name has its own route above, so this raises → 404

    return router


def rest_router(advisor: Advisor, registry: Registry, probe: IndexProbe) -> APIRouter:
    router = APIRouter(responses=ERROR_RESPONSES)

    @router.post("/api/chat", response_model=AdvisorResponse, tags=["chat"], summary="Ask the advisor (stateless)")
    def chat(request: ChatRequest, http: Request) -> AdvisorResponse:
        return answer_with(advisor, request.message, request.history, AnswerOptions(request_id=request_id_of(http)))

    @router.post(
        "/api/proposal", tags=["chat"], summary="A procurement proposal for the conversation (HTML, PDF or Markdown file)",
        responses={200: {"content": {media: {} for media in MEDIA_TYPES.values()}, "description": "The proposal file."}},
    )  # fmt: skip
    def proposal(request: ProposalRequest, http: Request) -> Response:
        return proposal_response(advisor.planner, request, request_id_of(http))

    @router.get("/api/gpus", response_model=GpuList, tags=["catalog"], summary="List catalog GPUs (the list_gpus tool)")
    def gpus(filters: Annotated[GpuFilter, Query()]):
        return registry.run("list_gpus", filters)

    @router.get("/api/models", response_model=ModelList, tags=["catalog"], summary="List catalog models")
    def models() -> ModelList:
        return ModelList(models=load_catalog().models)

    @router.get("/healthz", response_model=Health, tags=["health"], summary="Liveness, answer mode and index state")
    async def healthz() -> Health:
        try:
            state = await asyncio.wait_for(asyncio.wrap_future(HEALTH_POOL.submit(index_state, probe)), HEALTH_DEADLINE_S)
        except TimeoutError:  # the store does not answer in time: that is the answer
            state = "unavailable"
        llm = llm_health(advisor)  # in memory: no endpoint call, no thread
        return Health(
            mode=advisor.mode, llm=llm.status, llm_reason=llm.reason, index=state, index_ready=state == "ready", tools=len(registry.names())
        )

    return router


def create_api(settings: Settings, advisor: Advisor | None = None, registry: Registry | None = None) -> FastAPI:
    """Build the API app; the advisor and registry default to the ones configured by ``settings``."""
    registry = registry or shared_registry()
    advisor = advisor or build_advisor(settings)
    app = FastAPI(title="GPU Advisor API", version=_version(), description=DESCRIPTION, docs_url=None, redoc_url=None)
    install_error_handlers(app)
    signer = SessionSigner.for_settings(settings)  # one per server: the guard checks what the login routes issue
    app.add_middleware(ApiGuard, settings=settings, signer=signer)
    # Always installed, even with no origins: its presence also stops the mounted Gradio app from adding
    # its own CORS layer (which echoes any Origin with credentials). Added last = outermost, so refusals
    # (401/413/429) still carry CORS headers for the allowed origins. Never with credentials.
    app.add_middleware(
        CORSMiddleware,
        allow_origins=frame_origins(settings),
        allow_credentials=False,
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type", "X-Embed-Key"],
        expose_headers=["Retry-After", "X-Request-ID"],
        max_age=600,
    )
    app.include_router(rest_router(advisor, registry, IndexProbe(settings)))
    app.include_router(tool_router(registry))
    app.include_router(openai_router(advisor, settings.stream_keepalive_s))
    install_embed(app, settings, advisor)
    install_login(app, settings, signer)
    install_docs(app)
    return app
