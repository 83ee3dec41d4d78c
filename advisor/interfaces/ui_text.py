"""Every label the web UI shows, in English and Chinese; the language toggle relabels from this table."""

from __future__ import annotations

from advisor.contract import Language
from advisor.labels import label

DEFAULT_LANGUAGE: Language = "zh"

# key: (English, 中文)
TEXT: dict[str, tuple[str, str]] = {
    "title": ("# GPU Advisor", "# GPU 选型顾问"),
    "subtitle": (
        "Choose, size, cost and troubleshoot GPU servers for large models. Ask in the chat, or use a calculator tab.",
        "为大模型训练与推理选卡、估显存、算成本、排查故障。可以直接提问，也可以用计算器标签页。",
    ),
    "language": ("Language / 语言", "语言 / Language"),
    # chat
    "tab_chat": ("💬 Chat", "💬 对话"),
    "chatbot": ("Advisor", "顾问"),
    "message": ("Your question", "您的问题"),
    "message_placeholder": (
        "e.g. Which GPU for a 7B model? Or paste an error log…",
        "例如：70亿参数模型该选什么卡？也可以直接粘贴报错日志……",
    ),
    "send": ("Send", "发送"),
    "clear": ("New conversation", "新对话"),
    "details": ("Details: formulas, defaults, sources", "细节：公式、默认值与来源"),
    "proposal_html": ("Download proposal (HTML)", "下载采购方案（HTML）"),
    "proposal_pdf": ("Download proposal (PDF)", "下载采购方案（PDF）"),
    "proposal_file": ("Procurement proposal", "采购方案"),
    "examples": ("Examples", "示例问题"),
    "thinking": ("Thinking…", "正在分析……"),
    "arguments": ("Arguments", "参数"),
    "result": ("Result", "结果"),
    "tool_error": ("Error", "错误"),
    # calculator tabs
    "tab_memory": ("🧮 Memory", "🧮 显存估算"),
    "tab_recommend": ("🎯 Recommend", "🎯 选卡推荐"),
    "tab_serving": ("🚀 Serving speed", "🚀 推理速度"),
    "tab_tco": ("💰 Rent vs buy", "💰 租还是买"),
    "tab_training": ("⏱️ Training time", "⏱️ 训练时长"),
    "tab_troubleshoot": ("🩺 Troubleshoot", "🩺 故障诊断"),
    "tab_catalog": ("📋 GPU catalog", "📋 GPU 目录"),
    "run": ("Calculate", "计算"),
    "model": ("Model (catalog name or size such as 7B)", "模型（目录名称，或参数量如 7B）"),
    "mode": ("Workload", "用途"),
    "method": ("Training method (training)", "训练方式（训练）"),
    "precision": ("Weight precision", "权重精度"),
    "batch": ("Batch size", "批大小"),
    "context": ("Context length (tokens)", "上下文长度（token）"),
    "gpu": ("GPU", "GPU 型号"),
    "num_gpus": ("Number of GPUs", "GPU 数量"),
    "zero_stage": ("ZeRO stage (training)", "ZeRO 阶段（训练）"),
    "tp": ("Tensor parallel (split the model over GPUs)", "张量并行（模型切分到几张卡）"),
    "task": ("Task", "任务"),
    "budget": ("Purchase budget (0 = no limit)", "采购预算（0 = 不限）"),
    "max_gpus": ("Most GPUs to consider", "最多考虑的 GPU 数"),
    "server_price": ("Server price (0 = estimate from catalog)", "整机价格（0 = 按目录估算）"),
    "cloud_price": ("Cloud price per GPU-hour (0 = catalog)", "云上每卡时价格（0 = 按目录）"),
    "training_precision": ("Matmul precision", "计算精度"),
    "memory_chart": ("Memory per GPU", "单卡显存构成"),
    "servers": ("Servers", "服务器台数"),
    "gpus_per_server": ("GPUs per server", "每台 GPU 数"),
    "utilisation": ("Utilisation %", "利用率 %"),
    "lifetime": ("Lifetime (years)", "使用年限（年）"),
    "currency": ("Currency", "币种"),
    "tco_chart": ("Cumulative cost", "累计成本"),
    "tokens": ("Training tokens (e.g. 2T, 2万亿)", "训练 token 数（如 2T、2万亿）"),
    "deadline": ("Deadline in days (0 = none)", "期限天数（0 = 不限）"),
    "mfu": ("MFU (e.g. 0.4; 0 = default table)", "MFU（如 0.4；0 = 按默认表）"),
    "log": ("Paste an error message or log", "粘贴报错信息或日志"),
    "log_placeholder": ("torch.OutOfMemoryError: CUDA out of memory…", "例如：训练时 GPU 利用率只有 30%，或粘贴 NCCL 报错"),
    "vendor": ("Vendor", "厂商"),
    "segment": ("Segment", "类别"),
    "min_memory": ("Minimum memory (GB, as sold)", "最低显存（标称 GB）"),
    "china_only": ("Buyable new in mainland China", "仅显示国内可买新卡"),
    "objective": ("Objective", "优化目标"),
    "engine": ("Serving engine", "推理引擎"),
    "prompt_tokens": ("Prompt tokens per request", "每个请求的输入 token 数"),
    "output_tokens": ("Output tokens per request", "每个请求的输出 token 数"),
    "concurrency": ("Concurrent requests (batch)", "并发请求数（批大小）"),
    "target_speed": ("Target tokens/s per user (0 = none)", "单用户目标速度，token/s（0 = 不设）"),
    "target_ttft": ("Target time to first token, ms (0 = none)", "首 token 延迟目标，毫秒（0 = 不设）"),
    "serving_chart": ("Throughput by concurrency", "吞吐随并发的变化"),
    "table": ("Results (click a header to sort)", "结果（点击表头排序）"),
    # chart axes and series
    "axis_gb": ("GB per GPU", "单卡显存（GB）"),
    "capacity": ("Capacity", "显存容量"),
    "mem_weights": ("Weights", "模型权重"),
    "mem_gradients": ("Gradients", "梯度"),
    "mem_optimizer": ("Optimizer states", "优化器状态"),
    "mem_activations": ("Activations & logits", "激活值与 logits"),
    "mem_kv_cache": ("KV cache", "KV 缓存"),
    "mem_overhead": ("Overhead (CUDA, NCCL, fragmentation)", "固定开销（CUDA、NCCL、碎片）"),
    "axis_month": ("Month", "月份"),
    "axis_cost": ("Cumulative cost", "累计成本"),
    "series_own": ("Buy (capex + running costs)", "自建（采购 + 运营）"),
    "series_cloud": ("Rent (cloud)", "租用（云）"),
    "break_even": ("Break-even", "回本点"),
    "axis_concurrency": ("Concurrent requests", "并发请求数"),
    "axis_speed_user": ("Tokens/s per user", "单用户 token/s"),
    "axis_speed_total": ("Total tokens/s", "总 token/s"),
    "axis_ttft": ("Time to first token (ms)", "首 token 延迟（毫秒）"),
    "series_per_user": ("Per user", "单用户速度"),
    "series_total": ("Total", "总吞吐"),
    "series_ttft": ("Time to first token", "首 token 延迟"),
    "target_speed_line": ("Target per user", "单用户目标"),
    "target_ttft_line": ("Latency target", "延迟目标"),
    "max_at_target": ("Most requests meeting the target", "满足目标的最大并发"),
    "requested": ("Your concurrency", "您的并发"),
    # settings: a session's own prices, pasted (the UI takes no file uploads)
    "tab_settings": ("⚙️ Settings", "⚙️ 设置"),
    "prices_help": (
        "**Your own prices, for this browser session only.** Paste the contents of a prices YAML file (same format as "
        "`ADVISOR_PRICES`: `gpus`, `power`, `clouds`, `servers`, each price with amount, currency, date and source). "
        "They replace the catalog's figures in this session's chat answers and calculators; other people's sessions "
        "are not affected, and closing or reloading the page forgets them.",
        "**您自己的价格，仅对本浏览器会话生效。** 粘贴价格 YAML 文件的内容，格式与 ADVISOR_PRICES 文件相同：分为显卡（“gpus”）、"
        "电价与机房（“power”）、云合同（“clouds”）、整机（“servers”）几节，每个价格都要写金额（“amount”）、币种（“currency”）、"
        "日期（“date”）和来源（“source”）。它们会在本会话的对话回答和计算器中替换目录价格；"
        "不影响其他人的会话，关闭或刷新页面后即失效。",
    ),
    "prices_box": ("Prices (YAML)", "价格（YAML）"),
    "prices_placeholder": (
        "gpus:\n  h100-sxm:\n    purchase: {amount: 25000, currency: USD, date: 2026-11-01, source: \"quote Q-1\"}",
        "在此粘贴价格 YAML，例如一张 H100 的采购价：金额、币种（USD 或 CNY）、报价日期和来源各占一个字段（示例见英文界面）",
    ),
    "prices_apply": ("Use these prices", "使用这些价格"),
    "prices_clear": ("Back to the catalog prices", "恢复目录价格"),
    "prices_none": (
        "No prices of your own are in force in this session: answers use the catalog's prices (with the server's "
        "prices file, where its administrator set one).",
        "本会话没有使用您自己的价格：回答采用目录价格（若管理员为服务器配置了价格文件，则含该文件中的价格）。",
    ),
    "prices_in_force": (
        "✅ **Your prices are in force** for this session's answers ({} entries, shown in sources as "
        "\"company prices (settings)\"):",
        "✅ **您的价格已生效**，用于本会话的回答（共 {} 项，来源中标注为“company prices (settings)”）：",
    ),
    "prices_rejected": (
        "⚠️ These prices were not applied; your text is kept in the box so you can fix it.",
        "⚠️ 这些价格未被采用；您的文本仍保留在输入框中，可直接修改。",
    ),
    "prices_kept": ("Still in force: {}", "仍然生效：{}"),
    "prices_kept_catalog": ("the catalog's prices", "目录价格"),
    "prices_kept_yours": ("the prices you applied before", "您之前应用的价格"),
    # errors
    "unexpected_error": (
        "Something went wrong on our side while calculating. Please check the inputs and try again.",
        "计算时出现内部问题，请检查输入后重试。",
    ),
    "empty_message": ("Please type a question first.", "请先输入问题。"),
}

EXAMPLES: list[str] = [
    "我有一个70亿参数模型，该选什么卡？",
    "Rent or buy 8×H100 at 60% utilisation?",
    "两台8卡A800训练700亿模型2万亿token要多久",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free.",
    "How much VRAM to serve Llama 3.1 70B at 32k context?",
    "4090 跑 Qwen2.5-7B 的 LoRA 微调够吗？",
]


def t(key: str, language: str) -> str:
    return label(TEXT[key], language)
