"""Configurations as they are sold: HGX/OAM boards, PCIe servers, NVL72 racks, Macs.

The catalog's ``form_factor`` says how each part is bought; this module turns it into the GPU
counts a buyer can actually order and names each configuration the way a quote would.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from knowledge.bilingual import Text
from knowledge.gpus import GPU
from knowledge.wording import shipped
from tools.recommend.schema import SoldAs

TEXT = shipped("recommend_text.yaml")

RACK_GPUS = 72
SERVER_GPUS = 8
# Past one server the plan needs a fast fabric; consumer cards, Macs, laptops and modules don't scale there.
MAX_COUNT_BY_SEGMENT = {"consumer": SERVER_GPUS, "workstation": SERVER_GPUS, "apple": 1, "datacenter": 512}
STANDARD_PCIE_COUNTS = (1, 2, 4, 8)
FABRIC_COUNTS = (*range(16, 65, 8), 96, 128, 192, 256, 384, 512)  # whole 8-GPU servers or boards


def sold_as(gpu: GPU) -> SoldAs:
    form = gpu.form_factor.casefold()
    if gpu.segment == "apple":
        return "apple"
    if "nvl72" in form:
        return "rack"
    if "laptop" in form:
        return "laptop"
    if "cloud-only" in form or "not sold separately" in form:
        return "cloud"
    if form.startswith(("sxm", "oam")) or (gpu.segment == "datacenter" and "module" in form and "server" in form):
        return "board"  # a data-centre module comes in its vendor's 8-way server (Ascend 910C in an Atlas 800T A3)
    if "module" in form and gpu.segment != "datacenter":
        return "module"  # Jetson: one system-on-module
    if "pair" in form:
        return "pair"
    return "server"


def board_size(gpu: GPU) -> int:
    """Smallest board on sale: 4 where the catalog lists 4-GPU boards (or just 'SXM4'/'OAM'), 8 where it says 8-GPU only."""
    form = gpu.form_factor
    if re.search(r"\b4/8|\b4-GPU", form):
        return 4
    return 8 if re.search(r"\b8-GPU|\b8 NPUs", form) else 4


def sold_counts(gpu: GPU, max_gpus: int) -> list[int]:
    """GPU counts in the steps the part is sold in, up to ``max_gpus`` and what its segment allows."""
    kind = sold_as(gpu)
    limit = min(max_gpus, MAX_COUNT_BY_SEGMENT[gpu.segment])
    if kind == "rack":
        counts: tuple[int, ...] = (RACK_GPUS,)
    elif kind in ("apple", "laptop", "module"):
        counts = (1,)
    elif kind == "board":
        counts = (4, 8, *FABRIC_COUNTS) if board_size(gpu) == 4 else (8, *FABRIC_COUNTS)
    elif kind == "pair":
        counts = (2, 4, 8, *FABRIC_COUNTS)  # pairs in servers of 2, 4 or 8: a 6-card box is no standard build
    else:  # PCIe servers are built with 1, 2, 4 or 8 cards (what tensor parallelism splits evenly and integrators
        # sell as standard); data-center parts scale out in whole servers over a fabric
        counts = STANDARD_PCIE_COUNTS + (FABRIC_COUNTS if gpu.segment == "datacenter" else ())
    return [c for c in counts if c <= limit]


def sold_count_from(gpu: GPU, needed: int) -> int | None:
    """The smallest count a buyer can order that holds ``needed`` GPUs: within one server the steps the part is
    sold in, beyond it whole servers (or racks); ``None`` for parts that do not scale past one server."""
    if sold_as(gpu) == "rack":
        return math.ceil(needed / RACK_GPUS) * RACK_GPUS
    in_one_server = [count for count in sold_counts(gpu, SERVER_GPUS) if count >= needed]
    if in_one_server:
        return in_one_server[0]
    return math.ceil(needed / SERVER_GPUS) * SERVER_GPUS if MAX_COUNT_BY_SEGMENT[gpu.segment] > SERVER_GPUS else None


def rounded_up_from(gpu: GPU) -> int | None:
    """The smallest count sold when it is more than one GPU (boards, pairs, racks)."""
    kind = sold_as(gpu)
    if kind == "rack":
        return RACK_GPUS
    if kind == "board":
        return board_size(gpu)
    return 2 if kind == "pair" else None


def usable_fraction(gpu: GPU) -> float:
    """The share of the memory the GPU may use: about 75% on a Mac (macOS wired limit), all of it on a card."""
    return gpu.gpu_usable_fraction


@dataclass(frozen=True)
class Layout:
    """How ``count`` GPUs serve a model: groups of tp × pp GPUs, each holding a full copy."""

    count: int
    tp: int
    pp: int

    @property
    def group(self) -> int:
        return self.tp * self.pp

    @property
    def replicas(self) -> int:
        return self.count // self.group


def inference_layout(count: int, smallest_group: int, heads: int | None) -> Layout | None:
    """One server: tensor parallelism over as many of its GPUs as the heads allow; beyond: replicas of 8-GPU groups
    (or of the smallest group that holds the model, split by pipeline stages across servers)."""
    divides = (lambda d: heads % d == 0) if heads else (lambda d: True)
    if smallest_group > SERVER_GPUS:
        if count % smallest_group:
            return None
        return Layout(count, SERVER_GPUS, smallest_group // SERVER_GPUS)
    sizes = [d for d in (8, 4, 2, 1) if d <= count and count % d == 0 and d >= smallest_group and divides(d)]
    return Layout(count, sizes[0], 1) if sizes else None


def serving_layouts(count: int, smallest_group: int, heads: int | None) -> list[Layout]:
    """Ways to serve many users on one count, replicas first: copies of the smallest group that holds the model
    (data parallel), then wider tensor-parallel groups within a server, which only a per-user speed target justifies."""
    if smallest_group > SERVER_GPUS:
        return [layout] if (layout := inference_layout(count, smallest_group, heads)) else []
    divides = (lambda d: heads % d == 0) if heads else (lambda d: True)
    groups = [g for g in (1, 2, 4, 8) if smallest_group <= g <= min(count, SERVER_GPUS) and count % g == 0 and divides(g)]
    return [Layout(count, g, 1) for g in groups]


def _short(gpu: GPU) -> str:
    """'NVIDIA B300 SXM (Blackwell Ultra)' → 'B300 SXM'; Apple names keep their GPU cores and memory."""
    name = gpu.name.removeprefix("NVIDIA ").removeprefix("AMD ").removeprefix("Intel ")
    return name if gpu.segment == "apple" else re.sub(r"\s*\(.*\)$", "", name)


def rack_name(gpu: GPU) -> str:
    return f"{gpu.id.upper()} NVL{RACK_GPUS}"


def config_label(gpu: GPU, count: int, machine: Text | None = None) -> tuple[Text, int]:
    """What the buyer orders, and how many boards/servers/racks/machines that is; ``machine`` names the one machine
    when it is ordered as a workstation or desktop rather than a server."""
    name, kind = _short(gpu), sold_as(gpu)
    servers = max(1, -(-count // SERVER_GPUS))
    if kind == "rack":
        racks = count // RACK_GPUS
        return TEXT.text("orders.rack_one" if racks == 1 else "orders.rack_many", racks=racks, rack=rack_name(gpu), count=count), racks
    if kind == "board":
        board = "HGX" if gpu.vendor == "NVIDIA" else "OAM"
        size = min(count, SERVER_GPUS)
        boards = count // size
        order = "orders.board_many" if boards > 1 else "orders.board_one"
        return TEXT.text(order, boards=boards, board=board, size=size, count=count, name=name), boards
    if kind == "apple":
        return TEXT.text("orders.mac", name=name), 1
    if kind == "laptop":
        return TEXT.text("orders.laptop", name=name), 1
    if kind == "module":
        return TEXT.text("orders.module", name=name), 1
    if kind == "cloud":
        return TEXT.text("orders.cloud", count=count, name=name), servers
    where = "alone" if servers == 1 else "within"
    pairs = TEXT.text(f"orders.{'pairs' if count > 2 else 'pair'}_{where}", pairs=count // 2) if kind == "pair" else Text(en="", zh="")
    if servers == 1 and machine is not None:
        return TEXT.text("orders.one_machine", count=count, name=name, pairs=pairs, machine=machine), 1
    if servers == 1:
        return TEXT.text("orders.one_server", count=count, name=name, pairs=pairs), 1
    return TEXT.text("orders.servers", count=count, name=name, servers=servers, per=SERVER_GPUS, pairs=pairs), servers


def sold_reasons(gpu: GPU, count: int, needed: int | None) -> list[Text]:
    """Why the count is what it is when the way the part is sold sets it, and what that implies."""
    kind, reasons = sold_as(gpu), []
    smallest = rounded_up_from(gpu)
    if smallest and needed is not None and needed < smallest and count == smallest:
        what = TEXT.text(f"sold.{kind}", smallest=smallest, board="HGX" if gpu.vendor == "NVIDIA" else "OAM")
        reasons.append(TEXT.text("sold.rounded_up_many" if needed > 1 else "sold.rounded_up_one", needed=needed, what=what, count=count))
    if kind == "cloud":
        reasons.append(TEXT.text("sold.rent_only"))
    if kind == "apple":
        reasons.append(TEXT.text("sold.mac", share=usable_fraction(gpu), memory=gpu.memory_gb))
    return reasons
