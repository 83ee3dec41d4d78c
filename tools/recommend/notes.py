"""Which GPUs are considered (and what is left out, and why), and the notes under the options."""

from __future__ import annotations

from knowledge.bilingual import Text
from knowledge.catalog import Catalog
from knowledge.fact_notes import fact_note
from knowledge.gpus import GPU
from tools.gpu_specs import CHINA_BUYABLE
from tools.recommend.configs import RACK_GPUS, rack_name, sold_as, usable_fraction
from tools.recommend.schema import Option, RecommendRequest
from tools.recommend.speed import load, sized_by_speed
from tools.serving.setup import ENGINE_LABELS


def _names(gpus: list[GPU], limit: int = 8) -> tuple[str, str]:
    names = [g.name for g in gpus]
    more = len(names) > limit
    return ", ".join(names[:limit]) + ("…" if more else ""), "、".join(names[:limit]) + ("等" if more else "")


def for_team(request: RecommendRequest) -> bool:
    return request.task == "inference" and (request.team or load(request) > 1)


def china_buyer(request: RecommendRequest) -> bool:
    """Buying in mainland China: said so, ranked for it, or a budget in yuan."""
    return request.region == "cn" or request.objective == "china" or (request.budget is not None and request.currency.upper() in ("CNY", "RMB"))


CHINA_MARKET = {"china-variant", "second-hand", "domestic"}  # made for, or only traded in, mainland China


def buying_outside_china(request: RecommendRequest) -> bool:
    """A dollar budget or price and no word of China: an international buyer, for whom H20 or Ascend are not options."""
    return not china_buyer(request) and request.currency.upper() == "USD"


def candidates(request: RecommendRequest, catalog: Catalog) -> tuple[list[GPU], list[Text]]:
    gpus = [catalog.gpu(name) for name in request.gpus] if request.gpus else list(catalog.gpus)
    gpus = list({g.id: g for g in gpus}.values())
    excluded: list[Text] = []

    def drop(left_out: list[GPU], en: str, zh: str) -> None:
        nonlocal gpus
        if left_out:
            names_en, names_zh = _names(left_out)
            excluded.append(Text(en=en.format(names=names_en), zh=zh.format(names=names_zh)))
            gpus = [g for g in gpus if g not in left_out]

    if china_buyer(request):
        barred = [g for g in gpus if g.china not in CHINA_BUYABLE]
        for rule in dict.fromkeys(g.china_rule.rule for g in barred):  # one line per rule, so the answer says which applies
            first = next(g.china_rule for g in barred if g.china_rule.rule == rule)
            line = fact_note("china_excluded", rule=Text(en=first.label_en, zh=first.label_zh))
            drop([g for g in barred if g.china_rule.rule == rule], line.en, line.zh)
    elif buying_outside_china(request) and not request.gpus:
        line = fact_note("china_market_excluded", names="{names}")
        drop([g for g in gpus if g.china in CHINA_MARKET], line.en, line.zh)
    if request.task != "inference":
        drop([g for g in gpus if g.inference_only], "Inference-only devices left out of training: {names}.", "仅适合推理、不参与训练推荐的设备：{names}。")
    elif for_team(request) and (macs := [g for g in gpus if sold_as(g) == "apple"]):
        users = load(request)
        who_en = f"{users:,} concurrent users" if users > 1 else "a team"
        who_zh = f" {users:,} 个并发用户" if users > 1 else "团队共用"
        gpus = [g for g in gpus if g not in macs]
        excluded.append(Text(
            en=f"Macs ({len(macs)} Apple silicon machines in the catalog) are single-user machines, left out of serving for {who_en}.",
            zh=f"苹果电脑（目录中 {len(macs)} 款 Apple 芯片机型）是单人使用的机器，不适合{who_zh}的推理服务，未列入。",
        ))  # fmt: skip
    racks = [g for g in gpus if sold_as(g) == "rack"]
    if racks and request.max_gpus < RACK_GPUS:
        if not request.gpus:  # overkill for most workloads: say so only when asked for by name
            gpus = [g for g in gpus if g not in racks]
            racks = []
        drop(racks,
             f"Sold only as whole NVL{RACK_GPUS} racks of {RACK_GPUS} GPUs, more than the {request.max_gpus} allowed: {{names}}.",
             f"只按 {RACK_GPUS} 卡的 NVL{RACK_GPUS} 整机柜出售，超过允许的 {request.max_gpus} 张卡：{{names}}。")  # fmt: skip
    return gpus, excluded


def notes(request: RecommendRequest, gpus: list[GPU], options: list[Option]) -> list[Text]:
    """Notes on the options shown (``options`` is the top of the ranking)."""
    found: list[Text] = []
    if not options:
        found.append(Text(
            en=f"Nothing in the catalog fits with up to {request.max_gpus} GPUs; try quantisation, QLoRA, or allow more GPUs.",
            zh=f"在最多 {request.max_gpus} 张卡的范围内没有可行方案；可以尝试量化、QLoRA，或放宽最大卡数。",
        ))
    if macs := [o for o in options if o.sold_as == "apple"]:
        share = min(usable_fraction(gpu) for gpu in gpus if gpu.id in {o.gpu_id for o in macs})
        found.append(Text(
            en=f"On a Mac the GPU may use only about {share:.0%} of the unified memory (the macOS default wired-memory "
            "limit); Mac capacities here use that share.",
            zh=f"在苹果电脑上，macOS 默认只允许 GPU 使用约 {share:.0%} 的统一内存；这里苹果电脑的可用容量按此比例计算。",
        ))
    if sized_by_speed(request) and options:
        users, target = load(request), request.tokens_per_s_per_user
        at_en = f" at {target:g} tokens/s or more each" if target else ""
        at_zh = f"、每人不低于 {target:g} token/s" if target else ""
        found.append(Text(
            en=f"Each configuration is grown, in the steps it is sold in, until it serves {users:,} concurrent users{at_en} "
            f"({ENGINE_LABELS[request.engine]} speed estimate, ±30%).",
            zh=f"每种配置按实际出售的规格逐级加卡，直到能服务 {users:,} 个并发用户{at_zh}（按 {ENGINE_LABELS[request.engine]} 估算速度，误差约 ±30%）。",
        ))
        if not any(o.meets_target for o in options):
            found.append(Text(
                en=f"No configuration within {request.max_gpus} GPUs meets that load; the closest are listed. Allow more GPUs, "
                "lower the speed target or quantise the weights.",
                zh=f"在 {request.max_gpus} 张卡以内没有配置能满足该负载，下面列出最接近的方案。可以放宽卡数、降低速度目标或量化权重。",
            ))
    rack = next((o for o in options[:3] if o.sold_as == "rack"), None)
    if rack is not None:
        name = next(rack_name(g) for g in gpus if g.id == rack.gpu_id)
        found.append(Text(en=f"{name} is a liquid-cooled rack of {RACK_GPUS} GPUs sold whole.", zh=f"{name} 是 {RACK_GPUS} 张 GPU 的液冷整机柜，只能整柜购买。"))
    return found
