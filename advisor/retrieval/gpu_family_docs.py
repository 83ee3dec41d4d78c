"""One searchable doc per GPU family, written from the catalog so spec questions retrieve facts.

Each family doc has an overview section and one section per GPU, in English and Chinese, with
every figure taken from `knowledge/gpus.yaml`; the row's spec and price sources travel with the
section as its `sources` (kept out of the text, where they would only add noise to matching).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from advisor.retrieval.documents import Chunk, Language, source_links
from knowledge.catalog import Catalog
from knowledge.gpus import GPU, Price


@dataclass(frozen=True)
class Family:
    slug: str
    title_en: str
    title_zh: str
    about_en: str
    about_zh: str
    includes: Callable[[GPU], bool]

    @property
    def doc_id(self) -> str:
        return f"gpu-{self.slug}"


def _nvidia_pro(keyword: str) -> Callable[[GPU], bool]:
    """NVIDIA data-center and workstation parts of one architecture (GeForce has its own doc)."""
    return lambda g: g.vendor == "NVIDIA" and g.segment != "consumer" and keyword in g.architecture.lower()


FAMILIES: tuple[Family, ...] = (
    Family("nvidia-blackwell", "NVIDIA Blackwell GPUs (B200, B300, GB200, GB300, RTX PRO 6000)",
           "NVIDIA Blackwell 系列 GPU（B200、B300、GB200、GB300、RTX PRO 6000）",
           "Blackwell is the NVIDIA generation after Hopper: HGX B200/B300 boards, Grace-Blackwell GB200/GB300 "
           "superchips in liquid-cooled NVL72 racks, and the RTX PRO 6000 workstation card. It adds FP4 tensor cores.",
           "Blackwell 是 Hopper 之后的 NVIDIA 新一代架构：包括 HGX B200/B300 八卡板、NVL72 液冷整机柜里的 "
           "GB200/GB300（Grace CPU + Blackwell GPU），以及 RTX PRO 6000 工作站卡，新增 FP4 张量核心。",
           _nvidia_pro("blackwell")),
    Family("nvidia-hopper", "NVIDIA Hopper GPUs (H100, H200, H800, H20, GH200)",
           "NVIDIA Hopper 系列 GPU（H100、H200、H800、H20、GH200）",
           "Hopper is the NVIDIA data-center generation that brought FP8 tensor cores (Transformer Engine). "
           "H100 and H200 are the mainstream training and serving cards; H800 and H20 are China-market variants; "
           "GH200 pairs a Hopper GPU with a Grace CPU.",
           "Hopper 是引入 FP8 张量核心（Transformer Engine）的 NVIDIA 数据中心架构。H100、H200 是主流的训练和推理卡，"
           "H800、H20 是面向中国市场的特供版，GH200 则把 Hopper GPU 和 Grace CPU 封装在一起。",
           _nvidia_pro("hopper")),
    Family("nvidia-ampere", "NVIDIA Ampere data-center and workstation GPUs (A100, A800, A10, A40, RTX A6000)",
           "NVIDIA Ampere 数据中心与工作站 GPU（A100、A800、A10、A40、RTX A6000）",
           "Ampere introduced BF16 and TF32 tensor cores. The A100 was the standard training GPU of the early "
           "large-model era and the A800 is its China variant; A10, A40 and RTX A6000 are GA102-based inference "
           "and workstation cards. Ampere has no FP8.",
           "Ampere 架构引入了 BF16 和 TF32 张量核心。A100 是大模型早期最主流的训练卡，A800 是其中国特供版；"
           "A10、A40、RTX A6000 是基于 GA102 的推理卡和工作站卡。Ampere 不支持 FP8。",
           _nvidia_pro("ampere")),
    Family("nvidia-ada", "NVIDIA Ada Lovelace data-center and workstation GPUs (L40S, L40, L20, L4, RTX 6000 Ada)",
           "NVIDIA Ada Lovelace 数据中心与工作站 GPU（L40S、L40、L20、L4、RTX 6000 Ada）",
           "Ada Lovelace data-center cards are PCIe cards without NVLink, aimed at inference, graphics and light "
           "fine-tuning; they support FP8. The L20 is a China-market variant.",
           "Ada Lovelace 数据中心卡都是不带 NVLink 的 PCIe 卡，定位推理、图形和轻量微调，支持 FP8；L20 是面向中国市场的特供版。",
           _nvidia_pro("ada")),
    Family("nvidia-volta-turing", "Older NVIDIA data-center GPUs (V100, T4)", "老一代 NVIDIA 数据中心 GPU（V100、T4）",
           "Volta (V100) and Turing (T4) are older generations still found in clouds and on the second-hand "
           "market. They have FP16 tensor cores but no BF16 or FP8.",
           "Volta（V100）和 Turing（T4）是较老的架构，云上和二手市场仍很常见；有 FP16 张量核心，但不支持 BF16 和 FP8。",
           lambda g: g.vendor == "NVIDIA" and g.segment != "consumer"
           and any(k in g.architecture.lower() for k in ("volta", "turing"))),
    Family("geforce", "NVIDIA GeForce consumer GPUs (RTX 5090, 4090, 3090 …)",
           "NVIDIA GeForce 消费级显卡（RTX 5090、4090、3090 等）",
           "GeForce RTX cards are consumer gaming GPUs with GDDR memory: the cheapest memory per dollar, popular "
           "for local inference and LoRA fine-tuning, but limited capacity and no NVLink on recent generations.",
           "GeForce RTX 是面向游戏的消费级显卡，使用 GDDR 显存：单位显存最便宜，常用于本地推理和 LoRA 微调，"
           "但显存容量有限，新一代也不支持 NVLink。",
           lambda g: g.vendor == "NVIDIA" and g.segment == "consumer"),
    Family("amd-instinct", "AMD Instinct accelerators (MI250X, MI300X, MI325X, MI355X)",
           "AMD Instinct 加速卡（MI250X、MI300X、MI325X、MI355X）",
           "AMD Instinct accelerators offer large HBM capacity per device and run PyTorch through the ROCm stack.",
           "AMD Instinct 加速卡单卡 HBM 显存容量大，通过 ROCm 软件栈运行 PyTorch。",
           lambda g: g.vendor == "AMD"),
    Family("intel-gaudi", "Intel Gaudi accelerators (Gaudi 2, Gaudi 3)", "英特尔 Gaudi 加速卡（Gaudi 2、Gaudi 3）",
           "Intel Gaudi accelerators integrate Ethernet (RoCE) ports for scale-out and use the Intel Gaudi software stack.",
           "英特尔 Gaudi 加速卡集成了以太网（RoCE）端口用于多机扩展，使用 Intel Gaudi 软件栈。",
           lambda g: g.vendor == "Intel"),
    Family("huawei-ascend", "Huawei Ascend NPUs (Ascend 910B)", "华为昇腾 NPU（昇腾 910B）",
           "Huawei Ascend is the main domestic accelerator in China; it runs the CANN stack with MindSpore or "
           "PyTorch through torch_npu.",
           "华为昇腾是国内主要的国产加速卡，软件栈为 CANN，可用 MindSpore，或通过 torch_npu 运行 PyTorch。",
           lambda g: g.vendor == "Huawei"),
    Family("google-tpu", "Google Cloud TPUs (TPU v5p, TPU v5e)", "谷歌云 TPU（TPU v5p、TPU v5e）",
           "Google TPUs are only available as a Google Cloud service and are programmed through JAX/XLA or PyTorch/XLA.",
           "谷歌 TPU 只能在 Google Cloud 上租用，通过 JAX/XLA 或 PyTorch/XLA 编程。",
           lambda g: g.vendor == "Google"),
    Family("aws-trainium", "AWS Trainium accelerators (Trainium2)", "AWS Trainium 加速芯片（Trainium2）",
           "AWS Trainium chips are only available as AWS instances (Trn2) and use the AWS Neuron SDK.",
           "AWS Trainium 只能以 AWS 实例（Trn2）形式使用，软件栈为 AWS Neuron SDK。",
           lambda g: g.vendor == "AWS"),
    Family("apple-silicon", "Apple silicon Macs for local LLM inference (M2 Ultra, M3 Ultra, M4 Max)",
           "用于本地大模型推理的苹果芯片（M2 Ultra、M3 Ultra、M4 Max）",
           "Apple silicon shares one pool of unified memory between CPU and GPU, so large models fit for local "
           "inference (llama.cpp, MLX), but training large models on it is impractical.",
           "苹果芯片的 CPU 和 GPU 共用统一内存，大模型也能放得下做本地推理（llama.cpp、MLX），但不适合训练大模型。",
           lambda g: g.vendor == "Apple"),
)
FAMILY_IDS = tuple(f.doc_id for f in FAMILIES)

SEGMENT = {
    "datacenter": ("data-center accelerator", "数据中心卡"),
    "workstation": ("workstation card", "工作站卡"),
    "consumer": ("consumer GeForce card", "消费级显卡"),
    "apple": ("Apple silicon chip with unified memory", "苹果芯片（统一内存）"),
}
CHINA = {
    "available": ("It can be bought in mainland China.", "中国大陆可以正常购买。"),
    "export-controlled": ("US export controls bar new sales into mainland China.", "受美国出口管制，中国大陆无法购买新卡。"),
    "china-variant": ("It is a China-market variant cut down to meet US export rules.", "这是为符合美国出口管制而降规格的中国特供版。"),
    "second-hand": ("It was a China-market variant, then barred by the Oct-2023 export rules: only installed or used units remain.", "它曾是中国特供版，2023年10月的出口新规后也被禁售，只剩存量或二手。"),
    "licensed": ("New units reach mainland China only under a case-by-case US licence.", "新卡只能凭美国逐案许可进入中国大陆。"),
    "domestic": ("It is a domestic Chinese accelerator.", "这是国产加速卡。"),
    "not-sold": ("It is not sold as hardware; you rent it as a cloud service.", "不单独出售硬件，只能以云服务形式租用。"),
}
CURRENCY_ZH = {"USD": "美元", "CNY": "元"}


def family_of(gpu: GPU) -> Family:
    for family in FAMILIES:
        if family.includes(gpu):
            return family
    raise ValueError(f"GPU {gpu.id} ({gpu.vendor} {gpu.architecture}) matches no GPU family; add one to FAMILIES")


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _price_en(price: Price, per: str) -> str:
    note = f"{price.note}; " if price.note else ""
    return f"about {_num(price.amount)} {price.currency} {per} ({note}observed {price.date})"


def _price_zh(price: Price, per: str) -> str:
    note = f"{price.note}；" if price.note else ""
    return f"约 {_num(price.amount)} {CURRENCY_ZH[price.currency]}{per}（{note}{price.date}）"


def gpu_sentences_en(g: GPU) -> str:
    parts = [
        f"{g.name} is a {SEGMENT[g.segment][0]} from {g.vendor} ({g.architecture} architecture, launched {g.launch_year}).",
        f"Memory: {_num(g.memory_gb)} GB of {g.memory_type} with {_num(g.bandwidth_gbs)} GB/s memory bandwidth.",
        f"Dense BF16/FP16 tensor compute: {_num(g.bf16_tflops)} TFLOPS." if g.bf16_tflops else "No dense BF16 figure is listed.",
        f"Dense FP8: {_num(g.fp8_tflops)} TFLOPS." if g.fp8_tflops else "It has no FP8 support.",
        f"FP32 (non-tensor): {_num(g.fp32_tflops)} TFLOPS." if g.fp32_tflops else "",
        f"Board power (TDP): {_num(g.tdp_w)} W." if g.tdp_w else "The vendor publishes no per-chip power figure.",
        f"Interconnect: {g.interconnect}.",
        f"GPU-to-GPU link bandwidth: {_num(g.nvlink_gbs)} GB/s per GPU." if g.nvlink_gbs else "No NVLink-class link: GPUs talk over PCIe.",
        f"PCIe Gen{g.pcie_gen}." if g.pcie_gen else "",
        f"Form factor: {g.form_factor}.",
        "Training large models on it is impractical; use it for inference." if g.inference_only else "",
        CHINA[g.china][0],
        g.availability_en,
        f"Indicative purchase price: {_price_en(g.purchase_price, 'per unit')}." if g.purchase_price else "",
        f"Indicative on-demand cloud price: {_price_en(g.cloud_price, 'per GPU-hour')}." if g.cloud_price else "",
        f"Also called: {', '.join(g.aliases)}." if g.aliases else "",
    ]
    return " ".join(p for p in parts if p)


def gpu_sentences_zh(g: GPU) -> str:
    parts = [
        f"{g.name} 是 {g.vendor} 的{SEGMENT[g.segment][1]}（{g.architecture} 架构，{g.launch_year} 年发布）。",
        f"显存：{_num(g.memory_gb)} GB {g.memory_type}，显存带宽 {_num(g.bandwidth_gbs)} GB/s。",
        f"BF16/FP16 稠密算力：{_num(g.bf16_tflops)} TFLOPS。" if g.bf16_tflops else "未列出 BF16 稠密算力。",
        f"FP8 稠密算力：{_num(g.fp8_tflops)} TFLOPS。" if g.fp8_tflops else "不支持 FP8。",
        f"FP32（非张量核心）：{_num(g.fp32_tflops)} TFLOPS。" if g.fp32_tflops else "",
        f"功耗（TDP）：{_num(g.tdp_w)} W。" if g.tdp_w else "厂商未公布单芯片功耗。",
        f"互联：{g.interconnect}。",
        f"卡间互联带宽每卡 {_num(g.nvlink_gbs)} GB/s。" if g.nvlink_gbs else "没有 NVLink 类高速互联，卡间通过 PCIe 通信。",
        f"PCIe {g.pcie_gen}.0。" if g.pcie_gen else "",
        f"外形规格：{g.form_factor}。",
        "不适合训练大模型，主要用于推理。" if g.inference_only else "",
        CHINA[g.china][1],
        g.availability_zh,
        f"参考购买价：{_price_zh(g.purchase_price, '每卡')}。" if g.purchase_price else "",
        f"云上按需参考价：{_price_zh(g.cloud_price, '每卡每小时')}。" if g.cloud_price else "",
        f"别名：{'、'.join(g.aliases)}。" if g.aliases else "",
    ]
    return "".join(p for p in parts if p)


def _gpu_sources(g: GPU) -> tuple[str, ...]:
    notes = [g.source] + [p.source for p in (g.purchase_price, g.cloud_price) if p]
    return tuple(dict.fromkeys(link for note in notes for link in source_links(note)))


def _overview(family: Family, gpus: list[GPU], language: Language) -> str:
    if language == "zh":
        members = "；".join(f"{g.name}（{_num(g.memory_gb)} GB {g.memory_type}，{g.launch_year} 年）" for g in gpus)
        return f"{family.about_zh}本目录收录 {len(gpus)} 款：{members}。"
    members = "; ".join(f"{g.name} ({_num(g.memory_gb)} GB {g.memory_type}, {g.launch_year})" for g in gpus)
    return f"{family.about_en} The catalog lists {len(gpus)}: {members}."


def gpu_family_chunks(catalog: Catalog) -> list[Chunk]:
    """Chunks of every family doc that has at least one catalog GPU, in both languages."""
    members: dict[str, list[GPU]] = {}
    for gpu in catalog.gpus:
        members.setdefault(family_of(gpu).slug, []).append(gpu)
    chunks: list[Chunk] = []
    for family in FAMILIES:
        gpus = members.get(family.slug)
        if not gpus:
            continue
        family_sources = tuple(dict.fromkeys(s for g in gpus for s in _gpu_sources(g)))
        for language in ("en", "zh"):
            common = dict(doc_id=family.doc_id, language=language, title_en=family.title_en, title_zh=family.title_zh)
            heading = "Overview" if language == "en" else "概览"
            chunks.append(Chunk(**common, position=0, section=heading, text=_overview(family, gpus, language),
                                sources=family_sources, tags=("gpu", "specs")))
            write = gpu_sentences_zh if language == "zh" else gpu_sentences_en
            for position, gpu in enumerate(gpus, start=1):
                chunks.append(Chunk(**common, position=position, section=gpu.name, text=write(gpu),
                                    sources=_gpu_sources(gpu), tags=("gpu", "specs", gpu.id)))
    return chunks
