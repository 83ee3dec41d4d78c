"""A GPU's mainland-China status on a given date, with the ECCN 3A090 rule or licensing event that decides it."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from knowledge.catalog import Catalog
from knowledge.export_rules import ChinaRule, ExportRules, china_rule


class ChinaStatusRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="GPU name or alias, e.g. 'H20', 'A40', '4090'.")
    as_of: date | None = Field(None, description="Date to judge on, e.g. 2025-05-01; default: after every known event.")


class ChinaStatusReport(BaseModel):
    gpu_id: str
    gpu_name: str
    rule: ChinaRule = Field(description="The status, the rule or event behind it, the TPP and density it was computed from.")
    history: list[ChinaRule] = Field(description="The status on each event date that concerns this part, oldest first.")


def china_status(request: ChinaStatusRequest, catalog: Catalog, rules: ExportRules) -> ChinaStatusReport:
    """Pure: the part's figures and the rules in, its status on ``as_of`` (and how it got there) out."""
    gpu = catalog.gpu(request.gpu)

    def on(day: date | None) -> ChinaRule:
        return china_rule(gpu.id, gpu.vendor, gpu.segment == "datacenter", gpu.precision_tflops, gpu.die_area_mm2, rules, day)

    days = sorted({rules.rule_date, *(e.date for e in rules.events if gpu.id in e.gpus)})
    history = [on(day) for day in days if request.as_of is None or day <= request.as_of]
    return ChinaStatusReport(gpu_id=gpu.id, gpu_name=gpu.name, rule=on(request.as_of), history=history)
