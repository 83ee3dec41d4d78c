"""Several jobs in one ask ("LoRA on 7B, serve 13B, now and then a full fine-tune of the 7B"): the configuration
is sized for the one that needs the most memory, and the others run on the same hardware.

Jobs are compared by what one copy needs on one GPU, unsharded: the same yardstick for serving and training,
and the one that decides how much GPU memory the configuration must have.
"""

from __future__ import annotations

from knowledge.catalog import Catalog
from tools.memory.estimator import estimate_memory
from tools.memory.schema import MemoryRequest
from tools.recommend.schema import RecommendRequest, Workload, WorkloadDemand
from tools.recommend.speed import load

SERVING_ONLY = {"concurrency": None, "tokens_per_s_per_user": None}  # cleared when a training job sets the size


def jobs(request: RecommendRequest) -> list[Workload]:
    """The request's own job and the other workloads, each once, in the order given."""
    own = Workload(model=request.model, params_b=request.params_b, task=request.task, precision=request.precision)
    unique: dict[tuple, Workload] = {}
    for job in [own, *(request.workloads or [])]:
        unique.setdefault((job.model, job.params_b, job.task, job.precision), job)
    return list(unique.values())


def _demand(job: Workload, request: RecommendRequest, catalog: Catalog) -> WorkloadDemand:
    common = {"model": job.model, "params_b": job.params_b, "context": request.context, "num_gpus": 1}
    if job.task == "inference":
        memory = MemoryRequest(mode="inference", precision=job.precision, kv_precision=request.kv_precision, batch=load(request), **common)
    else:
        method = {"lora": "lora", "qlora": "qlora"}.get(job.task, "full")
        precision = job.precision if job.task == "qlora" else None
        memory = MemoryRequest(mode="training", method=method, precision=precision, batch=request.batch, **common)
    estimate = estimate_memory(memory, catalog)
    return WorkloadDemand(
        model_id=estimate.model_id, model_label=estimate.model_label, params_b=estimate.params_b, task=job.task,
        memory_gb=round(estimate.total_per_gpu_gb, 1), sized_for=False,
    )  # fmt: skip


def most_demanding(request: RecommendRequest, catalog: Catalog) -> tuple[RecommendRequest, list[WorkloadDemand]]:
    """The request sized for its most demanding job, and every job's demand (none when there is only one job)."""
    found = jobs(request)
    if len(found) < 2:
        return request, []
    demands = [_demand(job, request, catalog) for job in found]
    top = max(range(len(found)), key=lambda i: demands[i].memory_gb)
    demands[top] = demands[top].model_copy(update={"sized_for": True})
    job = found[top]
    update: dict = {"model": job.model, "params_b": job.params_b, "task": job.task, "precision": job.precision, "workloads": None}
    if job.task != "inference":
        update |= SERVING_ONLY
    return request.model_copy(update=update), demands
