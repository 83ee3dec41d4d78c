"""Request and result models of ``recommend_gpus`` (they double as the LLM tool schema)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.wording import shipped
from tools.cost.money import DEFAULT_USD_TO_CNY, Currency
from tools.cost.price_age import StalePrice
from tools.memory.schema import MemoryEstimate
from tools.serving.schema import EngineId

FIELDS = shipped("tool_field_descriptions.yaml")

Task = Literal["inference", "lora", "qlora", "full_finetune", "pretrain"]
Objective = Literal["cheapest", "fastest", "cloud", "china", "budget", "power", "memory", "value"]
SoldAs = Literal["board", "server", "pair", "rack", "apple", "laptop", "module", "cloud"]


class Workload(BaseModel):
    """One more job the same configuration must run ("LoRA on 7B, 13B serving, sometimes a full fine-tune")."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="Model name/alias or bare size ('13B').")
    params_b: float | None = Field(None, description="Parameters in billions, when no model is named.")
    task: Task = Field("inference", description="inference, lora, qlora, full_finetune or pretrain.")
    precision: str | None = Field(None, description="Weight precision (inference; QLoRA's 4-bit format).")


class RecommendRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description=FIELDS.entry("recommend.model"))
    params_b: float | None = Field(None, description="Parameters in billions, when no model is named.")
    task: Task = Field("inference", description="inference (serving), lora, qlora, full_finetune or pretrain.")
    precision: str | None = Field(None, description="Weight precision for inference (bf16 default; fp8, int8, int4, awq-int4, q4_k_m…).")
    kv_precision: str | None = Field(None, description="KV-cache format for inference (bf16 default; fp8, int8).")
    precision_default: Literal["practice", "bf16"] = Field(
        "practice", description="No `precision` given, inference: 'practice' sizes each card in the format it is usually served in "
        "(FP8 on Hopper/Ada/Blackwell data-centre cards, 4-bit AWQ on older and GeForce cards); 'bf16' when quality comes first.",
    )
    context: int = Field(4096, description="Tokens per sequence.")
    batch: int = Field(1, description="Concurrent sequences (inference) or micro-batch per GPU (training).")
    objective: Objective | None = Field(
        None,
        description="How to rank; none given: three tiers first (recommended, budget, room to grow), then the rest cheapest first. 'cheapest' (lowest purchase price of the whole configuration), 'fastest' (most output "
        "tokens/s; training: most dense TFLOPS), 'cloud' (lowest cloud cost per hour), 'china' (only GPUs buyable new in "
        "mainland China, then cheapest), 'budget' (only configurations within `budget`, fastest first), 'power' (least board power of the whole "
        "configuration, then cheapest), 'memory' (most GPU memory per unit of purchase price), 'value' (most output tokens/s per unit "
        "of purchase price at the load).",
    )
    concurrency: int | None = Field(None, description="Concurrent users to serve (inference); each option grows, in the steps it is sold in, until it serves them.")
    tokens_per_s_per_user: float | None = Field(None, description="Speed each user should see while the answer is generated, tokens/s (inference).")
    engine: EngineId = Field("vllm", description="Serving engine for the speed estimate: vllm, sglang, trtllm, lmdeploy, hf, llamacpp, ollama, mlc, exllamav2 or autoawq.")
    office_site: bool = Field(False, description="No server room or data centre: only machines that stand in an office (workstations, "
                              "desktops, a part in its own desk machine), no rack server.")
    team: bool = Field(False, description="Serving shared by a team: single-user machines (Macs) are left out.")
    budget: float | None = Field(None, description="Purchase budget for the whole configuration (GPUs and the servers that hold them), in `currency`; a CNY budget means buying in mainland China.")
    budget_per: Literal["once", "month", "year"] = Field(
        "once", description="'once': `budget` buys the configuration; 'month'/'year': a running budget, met by renting it around the clock."
    )
    currency: str = Field("USD", description="'USD' or 'CNY'.")
    usd_to_cny: float = Field(DEFAULT_USD_TO_CNY, description="CNY per USD for converting catalog prices.")
    region: Literal["global", "cn"] = Field("global", description="'cn' keeps only GPUs that can be bought new in mainland China.")
    gpus: list[str] | None = Field(None, description="Only consider these GPUs (names or aliases).")
    max_gpus: int = Field(64, description="Largest GPU count to consider (1–512); an NVL72 rack needs 72.")
    top: int = Field(5, description="How many options to return (1–20).")
    today: str | None = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="Today's date, YYYY-MM-DD: GPU prices older than 6 months are flagged.")
    workloads: list[Workload] | None = Field(
        None, description="Every job the configuration must run, `model`/`task` included or not: it is sized for the one needing the most memory, "
        "and `Recommendation.workloads` says which one that was.",
    )


class Option(BaseModel):
    gpu_id: str
    gpu_name: str
    count: int = Field(description="GPUs in the whole configuration.")
    sold_as: SoldAs = Field(description="How the part is bought: HGX/OAM board, PCIe server, NVLink pair, NVL72 rack, Mac, laptop, module, or cloud-only.")
    consumer_server: bool = Field(False, description="Four or more GeForce cards in one box, or GeForce for team serving: a hobby build, ranked after data-center options.")
    units: int = Field(description="Boards, servers, racks or machines bought.")
    config_label: Text = Field(description=FIELDS.entry("recommend.config_label"))
    precision: str | None = Field(None, description="Weight format the option is sized in when the recommender chose it for the card (`precision_default`).")
    plan: str = Field(description="Parallel plan, e.g. 'single GPU', 'TP=4', 'TP=8 × 2 replicas', 'ZeRO-3 over 8 GPUs'.")
    plan_label: Text = Field(description=FIELDS.entry("recommend.plan_label"))
    tp: int
    pp: int = 1
    replicas: int = Field(1, description="Independent copies of the model (inference).")
    zero_stage: int
    per_gpu_gb: float = Field(description="Peak memory per GPU, GB = 10^9 bytes.")
    nominal_memory_gb: float = Field(description="The card's memory as sold (the catalog's nominal size, binary: 80 means 80 GiB).")
    capacity_gb: float = Field(description="Usable memory per GPU in GB = 10^9 bytes (80 GiB = 85.9 GB; Macs: ~75% of unified memory).")
    headroom_pct: float
    verdict: str
    tokens_per_s_per_user: float | None = Field(None, description="Tokens/s each user sees after the first token at the requested load (inference); the speed target or chat floor is checked on it.")
    ttft_ms: float | None = Field(None, description="Time to first token at the requested load, ms (inference).")
    tokens_per_s_total: float | None = Field(None, description="Output tokens/s of the whole configuration at the requested load (inference).")
    tokens_per_s_per_10k: float | None = Field(None, description="Value for money: output tokens/s at the load per 10,000 of `currency` of purchase price.")
    max_users_at_target: int | None = Field(None, description="Concurrent users served at the speed target (or fitting in memory without one).")
    meets_target: bool | None = Field(None, description="Serves the requested concurrency at the speed target; None when none was asked.")
    speed_engine: str | None = Field(None, description="Engine the speed estimate used.")
    speed_assumed: bool = Field(False, description="The speed rests on an assumed efficiency: no measurement on file for this device family.")
    total_tflops: float | None = Field(None, description="Dense BF16 TFLOPS of all GPUs together.")
    power_w: float | None = Field(None, description="Board power (TDP) of all GPUs together, watts.")
    purchase_cost: float | None = Field(None, description="Indicative purchase price of the whole configuration: the GPUs plus the servers that hold them, in `currency`.")
    gpu_cost: float | None = Field(None, description="The GPUs alone (count × per-GPU price), in `currency`.")
    price_estimated: bool = Field(False, description="The card price is a ranged estimate from dated sources (knowledge/price_estimates.yaml); `purchase_cost` is its midpoint.")
    purchase_low: float | None = Field(None, description="Low end of the whole configuration's price: the card price is an estimate, or the whole-server quote gives a range.")
    purchase_high: float | None = Field(None, description="High end of that range.")
    server_class: str | None = Field(None, description="Server class from knowledge/servers.yaml (hgx-8gpu, pcie-8gpu, workstation-4gpu, desktop-1gpu); None when the part comes in its own machine.")
    server_label: Text | None = Field(None, description="The server class in both languages.")
    server_count: int = Field(0, description="Machines of `server_class` bought.")
    server_cost: float | None = Field(None, description="Those machines without GPUs (chassis, CPUs, RAM, NICs, storage), in `currency`.")
    host_power_w: float | None = Field(None, description="What those machines draw besides the GPUs, watts.")
    cloud_cost_per_hour: float | None = Field(None, description="Indicative cloud price of the whole configuration per hour (count × per-GPU-hour).")
    rent_per_month: float | None = Field(None, description="That price around the clock for a month (730 hours), in `currency`.")
    within_budget: bool | None = None
    reasons: list[Text] = Field(default_factory=list)


class WorkloadDemand(BaseModel):
    model_id: str
    model_label: Text
    params_b: float
    task: Task
    memory_gb: float = Field(description="Memory one copy of the job needs on one GPU, unsharded (GB = 10^9 bytes): how the jobs are compared.")
    sized_for: bool = Field(description="The most demanding job: the configuration is sized for it, the others run on the same hardware.")


FallbackChange = Literal["int4", "qlora", "lora"]


class BudgetFallback(BaseModel):
    """What the budget does buy when nothing that runs the job as asked fits in it."""

    change: FallbackChange = Field(description="What was given up: 4-bit weights for serving, LoRA/QLoRA for training.")
    option: Option = Field(description="The cheapest whole configuration within the budget after that change.")


TierName = Literal["recommended", "budget", "grow"]


class Tier(BaseModel):
    name: TierName
    label: Text = Field(description=FIELDS.entry("recommend.tier_label"))
    option: Option
    reason: Text = Field(description="Why this configuration is in this tier, in one line.")


class Recommendation(BaseModel):
    model_id: str
    model_name: str
    model_label: Text = Field(description="The model's display name in both languages.")
    params_b: float
    task: Task
    objective: Objective | None = Field(None, description="The ranking asked for; None: tiers first, then cheapest.")
    currency: Currency
    options: list[Option] = Field(
        description="Ranked: within budget first (when one is given), then configurations meeting the speed target, then by `objective`."
    )
    tiers: list[Tier] = Field(default_factory=list, description="Recommended, budget and room to grow, from every configuration that fits (within the budget when one is given).")
    estimate: MemoryEstimate | None = Field(None, description="Full itemised estimate behind the top option.")
    excluded: list[Text] = Field(default_factory=list, description="What was left out and why (region, inference-only, rack-only, Macs for a team…).")
    notes: list[Text] = Field(default_factory=list)
    stale_prices: list[StalePrice] = Field(default_factory=list, description="Prices the options stand on (card, host machine or whole-server quote, cloud rate) older than 6 months on `today`.")
    unit_note: Text = Field(description="One sentence on units (GB = 10^9 bytes, cards sold in GiB), to show once.")
    workloads: list[WorkloadDemand] = Field(default_factory=list, description="The jobs compared when several were given, the one sized for marked.")
    budget_short: bool = Field(False, description="A budget was given and no priced configuration that runs the job as asked fits in it.")
    cheapest_cost: float | None = Field(None, description="The lowest whole-configuration price that runs the job as asked, in `currency`.")
    cheapest_rent_per_hour: float | None = Field(None, description="The lowest cloud price per hour among the configurations that run the job, in `currency`.")
    fallback: BudgetFallback | None = Field(None, description="When the budget is short: the nearest thing it buys (4-bit weights, LoRA or QLoRA).")
    budget_months_to_buy: float | None = Field(None, description="A running budget: how many months of it the leading configuration's purchase price takes.")
    speed_floor: float | None = Field(None, description="Per-user tokens/s every configuration was grown to when several users and no speed were given (a sourced floor).")
