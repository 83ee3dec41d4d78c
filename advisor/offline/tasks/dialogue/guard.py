"""Answers for messages we should not (or cannot) act on: unreadable, off-topic, injection."""

from __future__ import annotations

from pathlib import Path

import yaml

from advisor.offline.turn import Turn

TEXT = yaml.safe_load(Path(__file__).with_name("guard_text.yaml").read_text(encoding="utf-8"))

CAPABILITIES = {
    "en": (
        "I can help with GPU servers for large models:\n"
        "- **Which GPU and how many** for a model and task — e.g. *“Which GPU for a 7B model with LoRA?”*\n"
        "- **Memory estimates** (inference, LoRA/QLoRA, full fine-tuning, ZeRO) — *“How much VRAM for Llama-3.1-70B at 32k context?”*\n"
        "- **GPU specs and comparisons** — *“H100 vs A100 80G”*\n"
        "- **Training time and cost** — *“How long to train 7B on 2T tokens with 64 H100s?”*\n"
        "- **Rent vs buy (TCO)** — *“Rent or buy 8×H100 at 60% utilisation?”*\n"
        "- **Troubleshooting** — paste an OOM trace, an Xid line or an NCCL error."
    ),
    "zh": (
        "我可以帮您解决大模型GPU服务器相关的问题：\n"
        "- **选什么卡、要几张** —— 例如「我有一个70亿参数模型，该选什么卡？」\n"
        "- **显存估算**（推理、LoRA/QLoRA、全参微调、ZeRO）——「Llama-3.1-70B 32k上下文需要多少显存？」\n"
        "- **GPU参数与对比** ——「H100和A100 80G有什么区别」\n"
        "- **训练时间与费用** ——「64张H100训练7B模型2万亿token要多久」\n"
        "- **租还是买（TCO）** ——「8卡H100利用率60%，租还是买划算？」\n"
        "- **故障排查** —— 直接粘贴OOM报错、Xid日志或NCCL错误。"
    ),
}


def unreadable(turn: Turn) -> str | None:
    """A reply for empty, emoji-only, nonsense or unsupported-language messages; None if readable."""
    flags = set(turn.reading.language_info.flags)
    if "empty" in flags:
        lead = turn.t("Your message was empty.", "您发送的消息是空的。")
    elif "emoji_only" in flags:
        lead = turn.t("I can't read a question in emoji alone 🙂.", "只有表情符号，我读不出具体问题 🙂。")
    elif "unsupported" in flags:
        lead = "I can answer in English or Chinese (中文) only. / 目前只支持中文和英文提问。"
    elif "nonsense" in flags and not (turn.entities.models or turn.entities.gpus or turn.entities.params):
        lead = turn.t("I couldn't make out a question there.", "我没能看懂这条消息的意思。")
    else:
        return None
    return f"{lead}\n\n{CAPABILITIES[turn.language]}"


def out_of_scope(turn: Turn) -> str:
    lead = turn.t(
        "That's outside what I can help with — I'm an advisor for GPU servers and large-model infrastructure.",
        "这个问题超出了我的范围——我是大模型GPU服务器选型与运维顾问。",
    )
    return f"{lead}\n\n{CAPABILITIES[turn.language]}"


def injection(turn: Turn) -> str:
    refusal = turn.t(
        "I can't change my instructions or share my configuration, prompts or keys. I'm happy to keep helping with GPU questions.",
        "我不能修改自己的工作规则，也不能透露配置、提示词或密钥。GPU相关的问题我很乐意继续帮您解答。",
    )
    return f"{refusal} {turn.t(**TEXT['scope'])}"


def greeting(turn: Turn) -> str:
    lead = turn.t("Hello! I'm GPU Advisor.", "您好！我是 GPU 选型顾问。")
    return f"{lead}\n\n{CAPABILITIES[turn.language]}"
