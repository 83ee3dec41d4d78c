"""Power, cooling and rack space of a GPU configuration: the facility questions a buyer's data centre asks.

Model: server power = GPU board power × GPUs × server-to-board factor (CPUs, memory, fans, NICs and
PSU losses); all of it leaves as heat, so cooling = power (BTU/h = kW × 3412.14); rack units come
from the way the part is sold (an HGX/OAM board server, a PCIe server, a whole NVL72 rack); racks
are counted against a per-rack power budget, since a typical rack runs out of power before space.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from tools.checks import check_range
from tools.common import LineItem

BTU_PER_KWH = 3412.14  # 1 kW of heat = 3412.14 BTU/h (unit definition)
RACK_UNITS = 42  # a full-height rack's usable mounting space


class FacilityRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu_tdp_w: float = Field(description="Board power (TDP) of one GPU, watts.")
    gpus: int = Field(description="GPUs in the whole configuration.")
    units: int = Field(1, description="Servers, boards, racks or machines bought.")
    units_height_u: float | None = Field(
        description="Rack units of one server as sold; None when it is not rack-mounted (a Mac, a cloud rental)."
    )
    whole_rack: bool = Field(False, description="The part is sold as a complete rack (NVL72): it fills its own racks.")
    liquid_cooled: bool = Field(False, description="The part as sold needs liquid cooling.")
    server_power_factor: float = Field(1.8, description="Server power ÷ GPU board power.")
    rack_power_kw: float = Field(10.0, description="Power (and cooling) budget of one rack, kW.")


class FacilityResult(BaseModel):
    gpu_kw: float = Field(description="GPU boards alone, kW.")
    total_kw: float = Field(description="Whole configuration at maximum, kW.")
    heat_btu_per_hour: float
    rack_units: float | None = Field(description="Rack units the servers fill; None when not rack-mounted.")
    racks: int | None = Field(description="Racks needed: the larger of space and power; None when not rack-mounted.")
    liquid_cooled: bool
    items: list[LineItem]
    notes: list[Text] = Field(default_factory=list)


def facility_needs(request: FacilityRequest) -> FacilityResult:
    check_range(request.gpus, "GPUs", "GPU 数", minimum=1, maximum=1_000_000, code="invalid_gpu_count")
    check_range(request.units, "Units", "台数", minimum=1, maximum=1_000_000, code="invalid_gpu_count")
    check_range(request.gpu_tdp_w, "GPU power (W)", "单卡功耗（W）", minimum=0, maximum=5_000, exclusive_minimum=True, code="invalid_power")
    check_range(request.server_power_factor, "Server power factor", "整机功耗系数", minimum=1, maximum=5, code="invalid_power")
    check_range(
        request.rack_power_kw, "Rack power (kW)", "单机柜功率（kW）", minimum=0, maximum=1_000, exclusive_minimum=True, code="invalid_power"
    )
    gpu_kw = request.gpu_tdp_w * request.gpus / 1000
    total_kw = gpu_kw * request.server_power_factor
    btu = total_kw * BTU_PER_KWH
    items = [
        _item("gpu_kw", "GPU boards", "GPU 板卡", gpu_kw, "kW",
              f"{request.gpu_tdp_w:g} W × {request.gpus} GPUs = {gpu_kw:.2f} kW", f"{request.gpu_tdp_w:g} W × {request.gpus} 卡 = {gpu_kw:.2f} kW"),
        _item("total_kw", "Whole configuration, maximum", "整套最大功率", total_kw, "kW",
              f"{gpu_kw:.2f} kW × {request.server_power_factor:g} (server overhead) = {total_kw:.2f} kW",
              f"{gpu_kw:.2f} kW × {request.server_power_factor:g}（整机附加）= {total_kw:.2f} kW"),
        _item("heat", "Heat to remove", "需散热量", btu, "BTU/h",
              f"{total_kw:.2f} kW × {BTU_PER_KWH} = {btu:,.0f} BTU/h", f"{total_kw:.2f} kW × {BTU_PER_KWH} = {btu:,.0f} BTU/h"),
    ]  # fmt: skip
    rack_units, racks = None, None
    if request.whole_rack:
        racks = request.units
        rack_units = float(request.units * RACK_UNITS)
        items.append(
            _item(
                "racks",
                "Racks",
                "机柜数",
                racks,
                "racks",
                f"{request.units} complete racks as sold",
                f"整柜交付，共 {request.units} 个机柜",
            )
        )
    elif request.units_height_u is not None:
        rack_units = request.units * request.units_height_u
        by_space = math.ceil(rack_units / RACK_UNITS)
        by_power = math.ceil(total_kw / request.rack_power_kw - 1e-9)
        racks = max(by_space, by_power)
        items += [
            _item("rack_units", "Rack space", "机架空间", rack_units, "U",
                  f"{request.units} × {request.units_height_u:g}U = {rack_units:g}U", f"{request.units} 台 × {request.units_height_u:g}U = {rack_units:g}U"),
            _item("racks", "Racks (space or power, whichever is more)", "机柜数（按空间与功率取大者）", racks, "racks",
                  f"max(⌈{rack_units:g}U / {RACK_UNITS}U⌉, ⌈{total_kw:.2f} kW / {request.rack_power_kw:g} kW⌉) = {racks}",
                  f"max(⌈{rack_units:g}U / {RACK_UNITS}U⌉, ⌈{total_kw:.2f} kW / {request.rack_power_kw:g} kW⌉) = {racks}"),
        ]  # fmt: skip
    if request.units_height_u is None and not request.whole_rack:
        notes = [
            Text(en="Not rack-mounted as sold: a desk or a cloud rental needs no rack.", zh="此形态不上机架：桌面设备或云上租用无需机柜。")
        ]
    else:
        notes = []
    return FacilityResult(
        gpu_kw=gpu_kw, total_kw=total_kw, heat_btu_per_hour=btu, rack_units=rack_units, racks=racks,
        liquid_cooled=request.liquid_cooled, items=items, notes=notes,
    )  # fmt: skip


def _item(key: str, en: str, zh: str, value: float, unit: str, formula: str, formula_zh: str) -> LineItem:
    return LineItem(key=key, label=Text(en=en, zh=zh), value=value, unit=unit, formula=formula, formula_zh=formula_zh)
