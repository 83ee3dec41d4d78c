"""Wire the pure tools to their data and build the advisor from settings."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from advisor.config import Settings
from advisor.registry import Registry, ToolSpec
from advisor.retrieval.search import Retriever
from advisor.retrieval.tool import search_knowledge, shared_retriever
from knowledge.catalog import Catalog, load_catalog
from knowledge.clouds import PriceBook, load_price_book
from knowledge.facility import FacilityBook, shipped_facility_book
from knowledge.link_expectations import LinkExpectations, load_link_expectations
from knowledge.serving import ServingData, load_serving_data
from knowledge.wording import Wording
from tools.capability import check_capability
from tools.cost.rental_market import rental_prices
from tools.cost.rentals import compare_rentals
from tools.cost.reservation import reserved_or_on_demand
from tools.cost.tco import compute_tco
from tools.cost.training_time import estimate_training_time
from tools.fabric import size_fabric
from tools.facility import plan_facility
from tools.equivalents import find_equivalents
from tools.gpu_specs import compare_gpus, list_gpus
from tools.memory.estimator import estimate_memory, max_fit
from tools.memory.runnable import runnable_models
from tools.recommend import recommend_gpus
from tools.recommend.claim import check_gpu_claim
from tools.recommend.price_estimate import estimate_server_price
from tools.serving.estimator import estimate_throughput
from tools.troubleshoot.diagnose import diagnose
from tools.troubleshoot.expected import check_measured
from tools.troubleshoot.rulebook import RuleBook, load_rulebook

SUMMARIES = Wording(Path(__file__).with_name("tool_summaries.yaml"))
# every tool the LLM agent, the REST API, MCP and `gpu-advisor tool` see; what each does is in tool_summaries.yaml
TOOLS = [
    ("recommend_gpus", recommend_gpus),
    ("estimate_memory", estimate_memory),
    ("estimate_throughput", estimate_throughput),
    ("max_fit", max_fit),
    ("runnable_models", runnable_models),
    ("estimate_server_price", estimate_server_price),
    ("compare_gpus", compare_gpus),
    ("check_gpu_claim", check_gpu_claim),
    ("check_capability", check_capability),
    ("find_equivalents", find_equivalents),
    ("list_gpus", list_gpus),
    ("estimate_training_time", estimate_training_time),
    ("compute_tco", compute_tco),
    ("plan_facility", plan_facility),
    ("size_fabric", size_fabric),
    ("compare_rentals", compare_rentals),
    ("reserved_or_on_demand", reserved_or_on_demand),
    ("rental_prices", rental_prices),
    ("search_knowledge", search_knowledge),
    ("diagnose", diagnose),
    ("check_measured", check_measured),
]
TOOL_SPECS = [ToolSpec(name, function, *SUMMARIES.pair(name)) for name, function in TOOLS]


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
