"""Serving speed of a configuration, from the ``estimate_throughput`` tool's figures (``estimate_figures``, without its wording).

A configuration meets the load when every requested user has a running sequence (the KV cache
holds them all) streaming no slower than the per-user speed target after the first token: the estimator's one
per-user definition, the same the serving answers check the chat floor on.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.bilingual import AdvisorError
from knowledge.catalog import Catalog
from knowledge.gpus import GPU
from knowledge.serving import ServingData
from tools.recommend.configs import Layout
from tools.recommend.schema import RecommendRequest
from tools.serving.estimator import estimate_figures
from tools.serving.schema import ThroughputRequest, ThroughputResult
from tools.serving.setup import engines_for

OUTPUT_TOKENS = 256  # a chat answer; the rest of `context` is the prompt
FALLBACK_ENGINES = ("vllm", "llamacpp", "hf")  # when the chosen engine has no backend for the GPU or the weights
RETRY_CODES = {"engine_unsupported_gpu", "engine_unsupported_precision", "engine_unsupported_kv_precision"}


@dataclass(frozen=True)
class Speed:
    per_user: float  # tokens/s each user sees after the first token, at the load asked
    ttft_ms: float
    total: float
    users: int  # served at the target (or fitting in the KV cache without one)
    engine: str
    assumed: bool = False  # the device family's efficiency is an assumption (no measurement on file)


def load(request: RecommendRequest) -> int:
    """Concurrent sequences the configuration must run: the users, else the batch."""
    return request.concurrency or request.batch


def sized_by_speed(request: RecommendRequest) -> bool:
    return request.task == "inference" and (request.concurrency is not None or request.tokens_per_s_per_user is not None)


def split_context(context: int) -> tuple[int, int]:
    """(prompt, output) tokens of one request whose whole sequence is ``context`` tokens."""
    output = max(1, min(OUTPUT_TOKENS, context // 4))
    return max(1, context - output), output


def request_shape(request: RecommendRequest) -> tuple[int, int]:
    """(prompt, output) tokens of the request the speed is checked on. A stated context is one whole sequence; without
    one, the serving estimate's own default chat request, so a recommendation and a serving answer check the same
    request (the 4,096-token default context is a window to reserve, not a prompt every user sends)."""
    if "context" in request.model_fields_set:
        return split_context(request.context)
    defaults = ThroughputRequest.model_fields
    return defaults["prompt_tokens"].default, defaults["output_tokens"].default


def meets(speed: Speed | None, request: RecommendRequest) -> bool:
    return speed is not None and speed.users >= load(request)


def estimate_speed(gpu: GPU, layout: Layout, request: RecommendRequest, catalog: Catalog, serving: ServingData) -> Speed | None:
    """Speed at the requested load, or None when no engine in our data can serve this model on the GPU."""
    engines = [request.engine] + [e for e in FALLBACK_ENGINES if e != request.engine and e in engines_for(gpu.vendor, serving)]
    for engine in engines:
        try:
            result = estimate_figures(_request(gpu, layout, request, engine, serving), catalog, serving)
        except AdvisorError as exc:
            if exc.code in RETRY_CODES:
                continue
            return None
        return _speed(result, request)
    return None


def _request(gpu: GPU, layout: Layout, request: RecommendRequest, engine: str, serving: ServingData) -> ThroughputRequest:
    prompt, output = request_shape(request)
    by_layers = serving.engine(engine).multi_gpu == "layers"
    return ThroughputRequest(
        model=request.model, params_b=request.params_b, precision=request.precision, kv_precision=request.kv_precision, gpu=gpu.id, engine=engine,
        num_gpus=layout.count, tp=None if by_layers else layout.group, batch=load(request),
        prompt_tokens=prompt, output_tokens=output, target_tokens_per_s_per_user=request.tokens_per_s_per_user,
    )  # fmt: skip


def _speed(result: ThroughputResult, request: RecommendRequest) -> Speed:
    users = result.max_batch_fits
    if request.tokens_per_s_per_user is not None:
        users = min(result.max_concurrency_at_target or 0, users)
    return Speed(
        per_user=round(result.tokens_per_s_per_user_streaming, 1),
        ttft_ms=round(result.ttft_ms, 1),
        total=round(result.output_tokens_per_s_total, 1),
        users=users,
        engine=result.engine,
        assumed=result.efficiency_assumed,
    )
