"""Power, cooling and rack space of a GPU configuration: the facility questions a buyer's data centre asks.

Model: server power = GPU board power × GPUs × server-to-board factor (CPUs, memory, fans, NICs and
PSU losses); all of it leaves as heat, so cooling = power (BTU/h = kW × 3412.14); rack units come
from the way the part is sold (an HGX/OAM board server, a PCIe server, a whole NVL72 rack); racks
are counted against a per-rack power budget, since a typical rack runs out of power before space.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import AdvisorError, Text
from knowledge.catalog import Catalog
from knowledge.clouds import PriceBook
from knowledge.tco_defaults import shipped_tco_defaults
from knowledge.facility import FacilityBook, PlanningDefault
from knowledge.wording import shipped
from tools.checks import INPUT_NAMES, check_range
from tools.cost.money import convert
from tools.cost.tco_region import COLOCATION_KEY, regional_defaults
from knowledge.region_tariffs import region_tariffs

from tools.common import LineItem, formula_fields

TEXT = shipped("facility_text.yaml")

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
    check_range(request.gpus, *INPUT_NAMES.pair("gpus"), minimum=1, maximum=1_000_000, code="invalid_gpu_count")
    check_range(request.units, *INPUT_NAMES.pair("units"), minimum=1, maximum=1_000_000, code="invalid_gpu_count")
    check_range(request.gpu_tdp_w, *INPUT_NAMES.pair("gpu_power_w"), minimum=0, maximum=5_000, exclusive_minimum=True, code="invalid_power")
    check_range(request.server_power_factor, *INPUT_NAMES.pair("server_power_factor"), minimum=1, maximum=5, code="invalid_power")
    check_range(
        request.rack_power_kw, *INPUT_NAMES.pair("rack_power_kw"), minimum=0, maximum=1_000, exclusive_minimum=True, code="invalid_power"
    )
    gpu_kw = request.gpu_tdp_w * request.gpus / 1000
    total_kw = gpu_kw * request.server_power_factor
    btu = total_kw * BTU_PER_KWH
    items = [
        _item("gpu_kw", "gpu_kw", gpu_kw, "kW", TEXT.text("formulas.gpu_kw", tdp=request.gpu_tdp_w, gpus=request.gpus, kw=gpu_kw)),
        _item("total_kw", "total_kw", total_kw, "kW",
              TEXT.text("formulas.total_kw", gpu_kw=gpu_kw, factor=request.server_power_factor, total=total_kw)),
        _item("heat", "heat_to_remove", btu, "BTU/h", f"{total_kw:.2f} kW × {BTU_PER_KWH} = {btu:,.0f} BTU/h"),
    ]  # fmt: skip
    rack_units, racks = None, None
    if request.whole_rack:
        racks = request.units
        rack_units = float(request.units * RACK_UNITS)
        items.append(
            _item("racks", "racks", racks, "racks", TEXT.text("formulas.whole_racks", units=request.units))
        )
    elif request.units_height_u is not None:
        rack_units = request.units * request.units_height_u
        by_space = math.ceil(rack_units / RACK_UNITS)
        by_power = math.ceil(total_kw / request.rack_power_kw - 1e-9)
        racks = max(by_space, by_power)
        items += [
            _item("rack_units", "rack_units", rack_units, "U",
                  TEXT.text("formulas.rack_units", units=request.units, height=request.units_height_u, total=rack_units)),
            _item("racks", "racks_by_space_or_power", racks, "racks",
                  f"max(⌈{rack_units:g}U / {RACK_UNITS}U⌉, ⌈{total_kw:.2f} kW / {request.rack_power_kw:g} kW⌉) = {racks}"),
        ]  # fmt: skip
    if request.units_height_u is None and not request.whole_rack:
        notes = [TEXT.text("not_rack_mounted")]
    else:
        notes = []
    return FacilityResult(
        gpu_kw=gpu_kw, total_kw=total_kw, heat_btu_per_hour=btu, rack_units=rack_units, racks=racks,
        liquid_cooled=request.liquid_cooled, items=items, notes=notes,
    )  # fmt: skip


def _item(key: str, label: str, value: float, unit: str, formula: Text | str) -> LineItem:
    """A figure labelled ``labels.<label>`` of the text file; a formula of numbers and symbols only reads the same in both languages."""
    both = formula if isinstance(formula, Text) else Text(en=formula, zh=formula)
    return LineItem(key=key, label=TEXT.text(f"labels.{label}"), value=value, unit=unit, **formula_fields(both))


# ---------------------------------------------------------------------------------------------------------------
# Rack, cooling and electricity plan for a number of servers: the questions a data centre asks before it racks them.

HOURS_PER_YEAR = 8760
MIN_PRACTICAL_CAP = 0.5  # GPUs below about half their board power lose more speed than the rack space is worth
MIN_SERVER_KW = 0.05  # below 50 W the figure was given in W, not kW: no GPU server draws that little


class Circuit(BaseModel):
    """The power feeds a user states for their rack or cage ("two 30 A 208 V three-phase feeds, A+B")."""

    model_config = ConfigDict(extra="forbid")

    amps: float | None = Field(None, description="Breaker rating of one feed, A; None when only the supply is stated "
                               "(\"single-phase 220 V\"): the plan then gives the rating each feed needs for the servers.")
    volts: float = Field(description="Voltage of one feed, V (line-to-line for three-phase).")
    three_phase: bool = Field(False, description="Three-phase feed: kW = A × V × √3.")
    feeds: int = Field(1, description="Feeds of this rating.")
    redundant: bool = Field(False, description="A+B (2N) feeds: the load must survive losing either side, so half of them count.")


class FacilityPlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU in the servers, e.g. 'H100', 'B200', 'RTX 4090'.")
    servers: int | None = Field(None, description="Servers (nodes); default: enough for `gpus`, else 1.")
    gpus: int | None = Field(None, description="GPUs in the whole cluster, when the servers are not counted.")
    gpus_per_server: int | None = Field(None, description="GPUs in one server (default: the reference system's count, else 8).")
    server_kw: float | None = Field(None, description="Maximum power of one server, kW (default: its datasheet or an estimate).")
    rack_power_kw: float | None = Field(None, description="Power (and cooling) budget of one rack, kW (default 10).")
    capacity_kw: float | None = Field(None, description="IT power available for the whole cluster, kW: how many servers it takes.")
    one_rack: bool = Field(
        False, description="The servers are to share one rack: without a stated budget, the rack is sized to hold them all."
    )
    circuit: Circuit | None = Field(None, description="The stated power feeds: how many servers they carry.")
    pue: float | None = Field(None, description="Facility PUE (default 1.3).")
    load_factor_pct: float | None = Field(None, description="Average draw as % of maximum (default 75).")
    network_storage_pct: float | None = Field(
        None, description="Network, storage and management power on top of the servers, % (default 10)."
    )
    electricity_price: float | None = Field(None, description="Per kWh in `currency` (default: the region's industrial tariff).")
    currency: str = Field("USD", pattern=r"^(USD|CNY)$")
    region: str | None = Field(None, description="'cn', 'us', 'uk'… (knowledge/region_tariffs.yaml) or 'global': picks the default tariff "
                               "and the region's own sourced colocation rate when it has one.")


class Figure(BaseModel):
    """An input of the plan: its value and whether the user gave it or it is a sourced default."""

    key: str
    value: float
    unit: str
    stated: bool
    basis: Text | None = None
    assumed: bool = Field(False, description="A planning assumption no published figure gives (its basis says what moves it).")
    date: str = ""
    url: str = ""
    title: str = ""


class Colocation(BaseModel):
    """What a colocation site bills for the servers' space and power capacity (not the energy itself): the IT load at
    maximum draw × the sourced rate per kW-month (knowledge/tco_defaults.yaml, a region's own in region_tariffs.yaml)."""

    per_kw_month: float = Field(description="Rate per kW of IT load a month, in `currency`.")
    kw: float = Field(description="The kW it is billed on: the IT load at maximum draw.")
    per_month: float
    hosting_per_month: float = Field(description="Colocation plus the month's electricity: what hosting the servers costs a month.")
    basis: str
    urls: list[str]
    date: str
    converted: bool = Field(description="The rate is published in USD and converted at `usd_to_cny` (no sourced China colocation rate).")
    usd_to_cny: float = Field(description="The CNY per USD of the price book.")


class FacilityPlanResult(BaseModel):
    gpu_name: str
    gpu_tdp_w: float | None
    system: Text = Field(description="The server the power figure is for.")
    server_kw: float
    server_kw_published: bool = Field(description="True when a maker's datasheet gives the figure; False for an estimate.")
    gpus_per_server: int
    servers: int
    rack_power_kw: float
    servers_per_rack: int = Field(description="Servers one rack takes: the smaller of its power budget and its space.")
    limited_by: str = Field(description="'power' or 'space'.")
    fits: bool = Field(description="All the servers fit in one rack within its budget.")
    headroom_pct: float | None = Field(None, description="Share of a stated rack budget the fullest rack leaves free, %.")
    tight: bool = Field(False, description="The servers fit a stated rack budget on paper, with less headroom than the planning margin.")
    planned_rack_kw: float | None = Field(None, description="Rack budget that keeps the planning margin free at this load, kW (when tight).")
    racks: int | None = Field(description="Racks needed at this budget; None when not even one server fits.")
    rack_load_kw: float = Field(description="Load of the fullest rack at maximum draw, kW.")
    whole_rack: bool
    cap_server_kw: float | None = Field(description="Server power that would let the next server in (or all of them), kW.")
    cap_gpu_w: float | None = Field(description="GPU power limit that reaches that server power, W per GPU.")
    cap_practical: bool
    it_kw: float = Field(description="IT load at maximum draw incl. network and storage, kW.")
    facility_kw: float = Field(description="IT load × PUE, kW.")
    energy_mwh_per_year: float
    cost_per_year: float
    cost_per_month: float = Field(description="The yearly bill over 12 months.")
    colocation: Colocation | None = Field(None, description="Rack space billed per kW of IT load a month, from the sourced colocation rate.")
    currency: str
    cooling: str = Field(description="'air', 'air_limit' (rear-door or containment) or 'liquid' for the fullest rack.")
    air_limit_kw: float
    liquid_above_kw: float
    racks_at_air_limit: int | None = Field(description="Racks needed if each had the air-cooling limit as its budget.")
    capacity_kw: float | None = None
    servers_in_capacity: int | None = Field(
        None, description="Servers the stated IT capacity takes at maximum draw, with network and storage."
    )
    circuit_kw: float | None = Field(None, description="Continuous kW the stated feeds carry after derating and redundancy.")
    servers_on_circuit: int | None = Field(None, description="Servers those feeds carry at maximum draw.")
    circuit_redundant: bool = Field(False, description="The feeds are A+B: only one side counts.")
    amps_needed: int | None = Field(None, description="Rating each feed would need (same voltage and count) for all the servers asked about.")
    supply_only: bool = Field(False, description="The supply was stated without a breaker rating (\"single-phase 220 V\"): amps_needed is "
                              "the rating each of its feeds needs, at its voltage and phase.")
    liquid_as_sold: bool = Field(False, description="The system is sold liquid-cooled (NVL72): no air-cooled variant.")
    china: str = Field("", description="The GPU's mainland-China status from the catalog (export-controlled, china-variant, ...).")
    china_rule: Text | None = Field(None, description="The rule or event behind that status.")
    figures: list[Figure]
    items: list[LineItem]
    notes: list[Text] = Field(default_factory=list)


def plan_facility(request: FacilityPlanRequest, catalog: Catalog, book: FacilityBook, prices: PriceBook = None) -> FacilityPlanResult:  # type: ignore[assignment]  # the registry injects by annotation
    gpu = catalog.gpu(request.gpu)
    data = book.data
    system = data.system_for(gpu.id)
    figures: list[Figure] = []
    per_server = request.gpus_per_server or (system.gpus_per_server if system else 8)
    check_range(per_server, *INPUT_NAMES.pair("gpus_per_server"), minimum=1, maximum=72, code="invalid_gpu_count")
    host = _host(gpu, per_server, book) if system is None or per_server != system.gpus_per_server else None
    server_kw, published, name, height = _server_power(request, gpu, per_server, system, host, figures)
    if request.gpus is not None:
        check_range(request.gpus, *INPUT_NAMES.pair("gpus"), minimum=1, maximum=1_000_000, code="invalid_gpu_count")
    servers = request.servers if request.servers is not None else math.ceil(request.gpus / per_server) if request.gpus else 1
    check_range(servers, *INPUT_NAMES.pair("servers"), minimum=1, maximum=100_000, code="invalid_gpu_count")
    circuit_kw = on_circuit = amps_needed = None
    circuit_items: list[LineItem] = []
    if request.circuit is not None and request.circuit.amps is None:  # the supply said without a rating: the rating it needs
        amps_needed, circuit_items = _supply(request.circuit, servers, server_kw, data.circuits.continuous_derating, figures)
    elif request.circuit is not None:
        circuit_kw, circuit_items = _circuit(request.circuit, data.circuits.continuous_derating, figures)
        on_circuit = math.floor(circuit_kw / server_kw + 1e-9)
        if on_circuit < servers:  # the rating each feed would need for all the servers asked about (one, if none were counted)
            amps_needed = math.ceil(request.circuit.amps * servers * server_kw / circuit_kw - 1e-9)
        circuit_items.append(_item("servers_on_circuit", "servers_on_circuit", on_circuit, "servers", f"⌊{circuit_kw:.2f} kW / {server_kw:g} kW⌋ = {on_circuit}"))
    # the stated feeds are the rack's budget when no other budget was given
    stated_rack_kw = request.rack_power_kw if request.rack_power_kw is not None or circuit_kw is None else round(circuit_kw, 2)

    planning = data.planning
    whole_rack = system is not None and system.gpus_per_server > 8 and host is None
    rack_default = planning.rack_power_kw
    if stated_rack_kw is None and request.one_rack and not whole_rack:
        rack_default = _shared_rack(min(servers, int(planning.rack_units.value // height) or 1) * server_kw, data)
    elif stated_rack_kw is None and (whole_rack or server_kw > rack_default.value):  # a typical rack cannot take even one
        rack_default = _denser_rack(server_kw if whole_rack else data.cooling.air_limit_kw, data, whole_rack)
    rack_kw = _take(figures, "rack_power_kw", stated_rack_kw, rack_default, "kW", *INPUT_NAMES.pair("rack_power_kw"), 1000)
    pue = _take(figures, "pue", request.pue, None, "", "PUE", "PUE", 3, fallback=book.pue, minimum=1)
    load = _take(
        figures, "load_factor_pct", request.load_factor_pct, None, "%", *TEXT.pair("inputs.load_factor_pct"), 100, fallback=book.load_factor_pct
    )
    overhead = _take(
        figures,
        "network_storage_pct",
        request.network_storage_pct,
        planning.network_storage_pct,
        "%",
        *TEXT.pair("inputs.network_storage_pct"),
        100,
        zero_allowed=True,
    )
    if request.electricity_price is None:
        figure = _site_tariff(data, request.region, request.currency, prices)
        price = figure.value
        figures.append(figure)
    else:
        price = _take(
            figures, "electricity_price", request.electricity_price, None, f"{request.currency}/kWh", *TEXT.pair("inputs.electricity_price"), 5
        )

    space = 1 if whole_rack else max(1, int(planning.rack_units.value // height))
    by_power = math.floor(rack_kw / server_kw + 1e-9)
    per_rack = min(by_power, space)
    limited_by = "power" if by_power < space else "space"
    racks = math.ceil(servers / per_rack) if per_rack else None
    in_fullest = min(servers, per_rack) if per_rack else 1
    rack_load = in_fullest * server_kw
    headroom, tight, planned = _headroom(request.rack_power_kw, rack_load if per_rack else None, whole_rack, planning.rack_headroom_pct, figures)
    cap_server, cap_gpu, practical = _cap(gpu, server_kw, per_server, servers, per_rack, space, rack_kw, whole_rack)
    it_kw = servers * server_kw * (1 + overhead / 100)
    facility_kw = it_kw * pue
    mwh = it_kw * load / 100 * pue * HOURS_PER_YEAR / 1000
    cost = mwh * 1000 * price
    cooling_data = data.cooling
    liquid = (system is not None and system.liquid_cooled and host is None) or rack_load > cooling_data.liquid_above_kw
    cooling = "liquid" if liquid else "air_limit" if rack_load > cooling_data.air_limit_kw else "air"
    dense_per_rack = min(space, math.floor(cooling_data.air_limit_kw / server_kw + 1e-9))
    racks_dense = math.ceil(servers / dense_per_rack) if dense_per_rack and not whole_rack else None

    in_capacity = None
    if request.capacity_kw is not None:
        check_range(
            request.capacity_kw,
            *INPUT_NAMES.pair("it_capacity_kw"),
            minimum=0,
            maximum=10_000_000,
            exclusive_minimum=True,
            code="invalid_power",
        )
        in_capacity = math.floor(request.capacity_kw / (server_kw * (1 + overhead / 100)) + 1e-9)

    cur = request.currency
    items = circuit_items + [
        _item("server_kw", "server_kw", server_kw, "kW", TEXT.text("formulas.server_kw", name=name, kw=server_kw)),
        _item("servers_per_rack", "servers_per_rack", per_rack, "servers",
              f"min(⌊{rack_kw:g} kW / {server_kw:g} kW⌋, ⌊{planning.rack_units.value:g}U / {height}U⌋) = {per_rack}"),
    ]  # fmt: skip
    if racks is not None:
        items.append(
            _item("racks", "racks", racks, "racks", f"⌈{servers} / {per_rack}⌉ = {racks}")
        )
    items += [
        _item("it_kw", "it_kw", it_kw, "kW", TEXT.text("formulas.it_kw", servers=servers, kw=server_kw, overhead=overhead, it=it_kw)),
        _item("facility_kw", "facility_kw", facility_kw, "kW", f"{it_kw:,.1f} kW × PUE {pue:g} = {facility_kw:,.1f} kW"),
        _item("heat", "heat_from_it", it_kw * BTU_PER_KWH, "BTU/h", f"{it_kw:,.1f} kW × {BTU_PER_KWH} = {it_kw * BTU_PER_KWH:,.0f} BTU/h"),
        _item("energy", "energy", mwh, "MWh", TEXT.text("formulas.energy", it=it_kw, load=load, pue=pue, hours=HOURS_PER_YEAR, mwh=mwh)),
        _item("electricity", "electricity", cost, cur, TEXT.text("formulas.electricity", mwh=mwh, price=price, currency=cur, cost=cost)),
    ]  # fmt: skip
    if in_capacity is not None:
        items.append(_item("servers_in_capacity", "servers_in_capacity", in_capacity, "servers",
                           f"⌊{request.capacity_kw:g} kW / ({server_kw:g} kW × (1 + {overhead:g}%))⌋ = {in_capacity}"))  # fmt: skip
    notes = []
    if not published and request.server_kw is None:
        notes.append(TEXT.text("estimated_server", per_server=per_server, gpu=gpu.name, tdp=gpu.tdp_w, host=host.power_w_excluding_gpus))
    return FacilityPlanResult(
        colocation=_colocation(prices, request.region, it_kw, cost / 12, cur),
        gpu_name=gpu.name, gpu_tdp_w=gpu.tdp_w, system=name, server_kw=server_kw, server_kw_published=published, gpus_per_server=per_server, servers=servers,
        rack_power_kw=rack_kw, servers_per_rack=per_rack, limited_by=limited_by, fits=per_rack >= servers, racks=racks, rack_load_kw=rack_load,
        headroom_pct=headroom, tight=tight, planned_rack_kw=planned,
        whole_rack=whole_rack, cap_server_kw=cap_server, cap_gpu_w=cap_gpu, cap_practical=practical, it_kw=it_kw, facility_kw=facility_kw,
        energy_mwh_per_year=mwh, cost_per_year=cost, cost_per_month=cost / 12, currency=cur, cooling=cooling, air_limit_kw=cooling_data.air_limit_kw,
        liquid_above_kw=cooling_data.liquid_above_kw, racks_at_air_limit=racks_dense, capacity_kw=request.capacity_kw,
        servers_in_capacity=in_capacity, circuit_kw=circuit_kw, servers_on_circuit=on_circuit,
        circuit_redundant=request.circuit is not None and request.circuit.redundant, amps_needed=amps_needed,
        supply_only=request.circuit is not None and request.circuit.amps is None,
        liquid_as_sold=system is not None and system.liquid_cooled and host is None, china=gpu.china or "",
        china_rule=Text(en=gpu.china_rule.en, zh=gpu.china_rule.zh) if gpu.china_rule else None, figures=figures, items=items, notes=notes,
    )  # fmt: skip


def _headroom(
    stated_kw: float | None, rack_load: float | None, whole_rack: bool, margin: PlanningDefault, figures: list[Figure]
) -> tuple[float | None, bool, float | None]:
    """How much of a stated rack budget the fullest rack leaves free (%), whether that is below the planning margin
    (a 14 kW server in a 15 kW rack fits on paper with 7% to spare), and the budget that keeps the margin free. Only a
    budget the user stated is judged: a default rack is ours, and stated feeds are derated already."""
    if stated_kw is None or rack_load is None or whole_rack:
        return None, False, None
    headroom = (stated_kw - rack_load) / stated_kw * 100
    if headroom >= margin.value:
        return headroom, False, None
    figures.append(Figure(key="rack_headroom_pct", value=margin.value, unit="%", stated=False, basis=margin.basis, date=margin.date,
                          url=margin.source.url, title=margin.source.title))  # fmt: skip
    return headroom, True, rack_load / (1 - margin.value / 100)


def _site_tariff(data, region: str | None, currency: str, prices: PriceBook | None) -> Figure:
    """The industrial tariff where the servers run: a region with its own sourced price (knowledge/region_tariffs.yaml)
    uses it; a region listed there without one falls back to the planning tariff and the basis names that region as the
    gap, so a Singapore site is never priced at US power silently; else the facility book's tariff for the region."""
    tariff = data.tariff(region, currency)
    found = region_tariffs().get(region) if region else None
    if found is None or region == tariff.region:
        return Figure(key="electricity_price", value=tariff.price, unit=f"{currency}/kWh", stated=False, basis=tariff.name,
                      date=tariff.date, url=tariff.source.url, title=tariff.source.title)  # fmt: skip
    own = found.electricity
    if own is None:
        basis = TEXT.text("tariff.region_gap", region=found.name, fallback=tariff.name)
        return Figure(key="electricity_price", value=tariff.price, unit=f"{currency}/kWh", stated=False, basis=basis,
                      date=tariff.date, url=tariff.source.url, title=tariff.source.title)  # fmt: skip
    fx = (prices.defaults if prices is not None else shipped_tco_defaults())["usd_to_cny"].value
    value = own.value if own.currency == currency else convert(own.usd, "USD", currency, fx)
    return Figure(key="electricity_price", value=value, unit=f"{currency}/kWh", stated=False,
                  basis=TEXT.text("tariff.region_own", region=found.name), date=own.source.date, url=own.source.url,
                  title=own.source.title)  # fmt: skip


def _colocation(prices: PriceBook | None, region: str | None, it_kw: float, electricity_per_month: float, currency: str) -> Colocation:
    """A colocation site's monthly bill for the IT load (rate per kW-month × kW at maximum draw, energy billed apart):
    the region's own sourced rate when it has one (knowledge/region_tariffs.yaml, the same rate rent-or-buy uses there),
    else the price book's (a company's own when its prices file sets one), converted to CNY at the book's rate."""
    defaults = prices.defaults if prices is not None else shipped_tco_defaults()
    fx = defaults["usd_to_cny"].value
    rate = regional_defaults(defaults, region, fx)[0][COLOCATION_KEY]
    per_kw = convert(rate.value, "USD", currency, fx)
    colo = per_kw * it_kw
    dates = [source.date for source in rate.sources if source.date]
    return Colocation(per_kw_month=per_kw, kw=it_kw, per_month=colo, hosting_per_month=colo + electricity_per_month, basis=rate.basis,
                      urls=[source.url for source in rate.sources], date=max(dates) if dates else "", converted=currency != "USD", usd_to_cny=fx)  # fmt: skip


def _circuit(circuit: Circuit, derating: PlanningDefault, figures: list[Figure]) -> tuple[float, list[LineItem]]:
    """Continuous kW the stated feeds carry: A × V (× √3 for three phases) × the continuous-load derating, per feed;
    of A+B feeds only one side counts, since either side must carry the whole load when the other fails."""
    check_range(circuit.amps, *INPUT_NAMES.pair("feed_current_a"), minimum=0, maximum=10_000, exclusive_minimum=True, code="invalid_power")
    check_range(circuit.volts, *INPUT_NAMES.pair("feed_voltage_v"), minimum=90, maximum=50_000, code="invalid_power")
    check_range(circuit.feeds, *INPUT_NAMES.pair("feeds"), minimum=1, maximum=1_000, code="invalid_power")
    phase = math.sqrt(3) if circuit.three_phase else 1.0
    per_feed = circuit.amps * circuit.volts * phase * derating.value / 1000
    counted = max(1, circuit.feeds // 2) if circuit.redundant else circuit.feeds
    usable = per_feed * counted
    figures.append(Figure(key="continuous_derating", value=derating.value, unit="", stated=False, basis=derating.basis, date=derating.date,
                          url=derating.source.url, title=derating.source.title))  # fmt: skip
    root = " × √3" if circuit.three_phase else ""
    feeds = TEXT.text("formulas.feeds_redundant", feeds=circuit.feeds) if circuit.redundant else TEXT.text("formulas.feeds")
    items = [
        _item("feed_kw", "feed_kw", per_feed, "kW", f"{circuit.amps:g} A × {circuit.volts:g} V{root} × {derating.value:g} = {per_feed:.2f} kW"),
        _item("circuit_kw", "circuit_kw", usable, "kW", TEXT.text("formulas.circuit_kw", per_feed=per_feed, counted=counted, feeds=feeds, usable=usable)),
    ]  # fmt: skip
    return usable, items


def _supply(circuit: Circuit, servers: int, server_kw: float, derating: PlanningDefault, figures: list[Figure]) -> tuple[int, list[LineItem]]:
    """The breaker rating each feed of the stated supply needs for the servers at maximum draw: their kW over the feeds
    that count, ÷ (V, × √3 for three phases, × the continuous-load derating); a single-phase supply carries √3 less per amp."""
    check_range(circuit.volts, *INPUT_NAMES.pair("feed_voltage_v"), minimum=90, maximum=50_000, code="invalid_power")
    check_range(circuit.feeds, *INPUT_NAMES.pair("feeds"), minimum=1, maximum=1_000, code="invalid_power")
    phase = math.sqrt(3) if circuit.three_phase else 1.0
    counted = max(1, circuit.feeds // 2) if circuit.redundant else circuit.feeds
    load = servers * server_kw
    amps = math.ceil(load * 1000 / counted / (circuit.volts * phase * derating.value) - 1e-9)
    figures.append(Figure(key="continuous_derating", value=derating.value, unit="", stated=False, basis=derating.basis, date=derating.date,
                          url=derating.source.url, title=derating.source.title))  # fmt: skip
    root = " × √3" if circuit.three_phase else ""
    per_feed = f" / {counted}" if counted > 1 else ""
    formula = f"{servers} × {server_kw:g} kW{per_feed} × 1000 / ({circuit.volts:g} V{root} × {derating.value:g}) = {amps} A"
    return amps, [_item("supply_amps", "supply_amps", amps, "A", formula)]


def _server_power(request: FacilityPlanRequest, gpu, per_server: int, system, host, figures: list[Figure]):
    """One server's maximum power, whether a datasheet gives it, the server's name and its height in rack units: the
    user's figure, else the published system's, else GPUs × board power + what the server class draws besides them."""
    height = system.rack_units if host is None else host.rack_units or 4
    if request.server_kw is not None:
        check_range(
            request.server_kw, *INPUT_NAMES.pair("server_power_kw"), minimum=MIN_SERVER_KW, maximum=500, code="invalid_power"
        )
        figures.append(Figure(key="server_kw", value=request.server_kw, unit="kW", stated=True))
        return request.server_kw, False, TEXT.text("server_name", per_server=per_server, gpu=gpu.name), height
    if host is None:
        figures.append(Figure(key="server_kw", value=system.max_kw, unit="kW", stated=False, date=system.date, url=system.source.url,
                              title=system.source.title))  # fmt: skip
        return system.max_kw, True, system.name, height
    if gpu.tdp_w is None:
        raise AdvisorError("invalid_power", **TEXT.text("errors.no_power_figure", gpu=gpu.name).model_dump(), suggestions=["server_kw"])
    server_kw = (gpu.tdp_w * per_server + host.power_w_excluding_gpus) / 1000
    source = host.sources[0]
    figures.append(Figure(key="server_kw", value=server_kw, unit="kW", stated=False, date=host.date, url=source.url, title=source.title))
    return server_kw, False, TEXT.text("server_name", per_server=per_server, gpu=gpu.name), height


def _host(gpu, per_server: int, book: FacilityBook):
    """The server class that holds this GPU, for an estimate of the power besides the GPUs."""
    from tools.recommend.configs import sold_as  # the same rule the recommender sells the part by

    host = book.servers.for_gpus(sold_as(gpu), gpu.segment, per_server)
    if host is None:
        raise AdvisorError("invalid_power", **TEXT.text("errors.not_rack_server", gpu=gpu.name).model_dump())
    return host


def _take(figures: list[Figure], key: str, stated: float | None, default: PlanningDefault | None, unit: str, en: str, zh: str,
          maximum: float, fallback: float = 0.0, minimum: float = 0, zero_allowed: bool = False) -> float:  # fmt: skip
    """The stated value (checked) or the sourced default (a planning row, else ``fallback``), recorded either way."""
    if stated is not None:
        check_range(
            stated, en, zh, minimum=minimum, maximum=maximum, exclusive_minimum=minimum == 0 and not zero_allowed, code="invalid_power"
        )
        figures.append(Figure(key=key, value=stated, unit=unit, stated=True))
        return stated
    if default is not None:
        figures.append(Figure(key=key, value=default.value, unit=unit, stated=False, basis=default.basis, assumed=default.assumed,
                              date=default.date, url=default.source.url, title=default.source.title))  # fmt: skip
        return default.value
    figures.append(Figure(key=key, value=fallback, unit=unit, stated=False))
    return fallback


def _cap(gpu, server_kw: float, per_server: int, servers: int, per_rack: int, space: int, rack_kw: float, whole_rack: bool):
    """The power each server would have to be held to for more servers to share a rack, and the GPU power limit that
    gets there (only the GPUs can be capped; the host draws what it draws): the most servers a practical cap fits,
    else what one more server would take."""
    wanted = min(servers, space)
    if whole_rack or per_rack >= wanted or gpu.tdp_w is None:
        return None, None, False
    host_kw = server_kw - gpu.tdp_w * per_server / 1000
    options = []
    for target in range(wanted, per_rack, -1):
        cap_server = rack_kw / target
        cap_gpu = (cap_server - host_kw) * 1000 / per_server
        options.append((cap_server, max(cap_gpu, 0.0), cap_gpu >= gpu.tdp_w * MIN_PRACTICAL_CAP))
    return next((option for option in options if option[2]), options[-1])


def _shared_rack(kw: float, data) -> PlanningDefault:
    """The rack budget when the servers are to share one rack and no budget was given: what they all draw."""
    cooling = data.cooling.sources[0]
    basis = TEXT.text("shared_rack")
    return PlanningDefault(value=round(kw, 1), date=data.cooling.date, basis=basis, source={"url": cooling.url, "title": cooling.title})


def _denser_rack(kw: float, data, whole_rack: bool) -> PlanningDefault:
    """The rack budget planned when a typical rack cannot take one server: the air-cooling limit (or the whole rack's own
    draw), said as the assumption it is."""
    cooling = data.cooling.sources[0]
    if whole_rack:
        basis = TEXT.text("rack_scale")
    else:
        basis = TEXT.text("air_limit", kw=kw)
    return PlanningDefault(value=kw, date=data.cooling.date, basis=basis, source={"url": cooling.url, "title": cooling.title})
