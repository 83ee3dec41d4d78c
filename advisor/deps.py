"""Wire the pure tools to their data and build the advisor from settings."""

from __future__ import annotations

from functools import lru_cache

from advisor.config import Settings
from advisor.registry import Registry, ToolSpec
from advisor.retrieval.search import Retriever
from advisor.retrieval.tool import search_knowledge, shared_retriever
from knowledge.catalog import Catalog, load_catalog
from knowledge.clouds import PriceBook, load_price_book
from knowledge.facility import FacilityBook, shipped_facility_book
from knowledge.link_expectations import LinkExpectations, load_link_expectations
from knowledge.serving import ServingData, load_serving_data
from tools.capability import check_capability
from tools.cost.rental_market import rental_prices
from tools.cost.rentals import compare_rentals
from tools.cost.tco import compute_tco
from tools.cost.training_time import estimate_training_time
from tools.fabric import size_fabric
from tools.facility import plan_facility
from tools.gpu_specs import compare_gpus, list_gpus
from tools.memory.estimator import estimate_memory, max_fit
from tools.memory.runnable import runnable_models
from tools.recommend import recommend_gpus
from tools.serving.estimator import estimate_throughput
from tools.troubleshoot.diagnose import diagnose
from tools.troubleshoot.expected import check_measured
from tools.troubleshoot.rulebook import RuleBook, load_rulebook

TOOL_SPECS = [
    ToolSpec(
        "recommend_gpus",
        recommend_gpus,
        "Ranked GPU options (which GPU, how many, parallel plan, headroom, indicative cost) for a model and task",
        "针对模型和任务给出排序的选卡方案（型号、卡数、并行方式、余量、参考价格）",
    ),
    ToolSpec(
        "estimate_memory",
        estimate_memory,
        "Itemised GPU memory for inference or training, with formulas and a fit verdict for a GPU",
        "逐项估算推理或训练所需显存（含公式），并判断能否放进指定GPU",
    ),
    ToolSpec(
        "estimate_throughput",
        estimate_throughput,
        "Serving speed of a model on an engine and GPUs: tokens/s per user and in total, TTFT, bottleneck, max concurrency",
        "估算模型在指定引擎和GPU上的推理速度：单用户与总 token/s、首 token 时延、瓶颈与最大并发",
    ),
    ToolSpec("max_fit", max_fit, "Largest batch and context that fit a given GPU", "给定GPU能容纳的最大batch和最长上下文"),
    ToolSpec(
        "runnable_models",
        runnable_models,
        "Largest open models the user's GPUs can serve (16/8/4-bit)",
        "手上显卡能部署的最大模型",
    ),
    ToolSpec("compare_gpus", compare_gpus, "Specs of one or more GPUs side by side", "查看/对比GPU参数"),
    ToolSpec(
        "check_capability",
        check_capability,
        "Does a GPU have FP8/FP4/BF16, NVLink, a PCIe generation, enough memory or bandwidth; its power or form factor",
        "某款GPU是否支持FP8/FP4/BF16、NVLink、PCIe代数、显存或带宽是否够；功耗和形态",
    ),
    ToolSpec("list_gpus", list_gpus, "List catalog GPUs, filtered by vendor, memory or China availability", "按厂商、显存、国内可购等条件筛选GPU"),
    ToolSpec(
        "estimate_training_time",
        estimate_training_time,
        "Training FLOPs, wall-clock days, GPU-hours, energy and cost; or GPUs needed for a deadline",
        "估算训练算力、天数、GPU时、电量和费用，或按截止日期反推卡数",
    ),
    ToolSpec("compute_tco", compute_tco, "Rent vs buy: monthly costs, break-even month and utilisation", "租还是买：月成本、回本月份与盈亏平衡利用率"),
    ToolSpec(
        "plan_facility",
        plan_facility,
        "Racks, kW, air/liquid, yearly power bill for GPU servers",
        "机柜、功率、风冷/液冷、年电费",
    ),
    ToolSpec(
        "size_fabric",
        size_fabric,
        "Leaf/spine switches: IB vs Ethernet",
        "组网交换机数",
    ),
    ToolSpec("compare_rentals", compare_rentals, "Rental bills of GPU options side by side", "对比租用不同显卡的费用"),
    ToolSpec("rental_prices", rental_prices, "Rental price per tier; is a rate fair", "各档租价与报价是否合理"),
    ToolSpec(
        "search_knowledge",
        search_knowledge,
        "Search the curated GPU/LLM-infrastructure knowledge base; cite the hits",
        "检索GPU与大模型基础设施知识库，并引用结果",
    ),
    ToolSpec("diagnose", diagnose, "Diagnose GPU/training problems from a symptom or pasted log", "根据症状描述或日志诊断GPU/训练问题"),
    ToolSpec(
        "check_measured",
        check_measured,
        "Is a measured NCCL busbw normal for the NICs or card? Expected range, verdict, suspects",
        "实测 NCCL 带宽是否正常：理论范围、结论、可疑原因",
    ),
]


def default_registry() -> Registry:
    providers = {Catalog: load_catalog, PriceBook: load_price_book, ServingData: load_serving_data, RuleBook: load_rulebook, Retriever: shared_retriever,
                 LinkExpectations: load_link_expectations, FacilityBook: shipped_facility_book}
    return Registry(TOOL_SPECS, providers, per_answer=frozenset({Catalog, PriceBook}))  # prices can differ per web session


@lru_cache(maxsize=1)
def shared_registry() -> Registry:
    return default_registry()


def build_advisor(settings: Settings):
    from advisor.offline.planner import OfflinePlanner
    from advisor.service import Advisor

    registry = shared_registry()
    planner = OfflinePlanner(registry, cache_dir=settings.data_dir)
    if settings.llm is None:  # LangChain is only imported when an endpoint is configured
        return Advisor(planner)
    from advisor.llm.agent import LLMAgent, LoopSettings, build_chat_model
    from advisor.llm.resilience import CircuitBreaker

    s = settings.llm
    loop = LoopSettings(
        timeout_s=s.timeout_s, max_retries=s.max_retries, max_steps=s.max_steps, max_tokens=s.max_tokens,
        deadline_s=s.deadline_s, tool_mode=s.tool_mode, extra_body=s.extra_body,
    )  # fmt: skip
    llm = LLMAgent(registry, build_chat_model(s), loop=loop)
    return Advisor(planner, llm, deadline_s=s.deadline_s, breaker=CircuitBreaker(s.breaker_failures, s.breaker_cooldown_s))
