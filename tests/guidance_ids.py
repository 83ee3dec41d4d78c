"""The guidance doc ids (knowledge/docs/{en,zh}/<id>.md) that retrieval, troubleshooting rules and the docs tests build against."""

GUIDANCE_IDS = (
    "why-gpus", "sizing-by-model", "memory-rules", "expansion", "rent-vs-buy", "oom",
    "low-utilization", "thermal", "batch-and-accumulation", "mixed-precision",
    "activation-checkpointing", "data-pipeline", "parallelism", "interconnects",
    "inference-serving", "quantization", "china-market", "cloud-platforms",
    "multi-gpu-errors", "future-trends",
)
