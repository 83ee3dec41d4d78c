"""Whether a measured MFU is low, typical or good for the GPU class and cluster size it was measured on,
against the published runs behind the default-MFU table (tools/cost/mfu.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.bilingual import Text
from knowledge.catalog import Catalog
from tools.cost.mfu import GpuClass, default_mfu_row, gpu_class

# The published runs behind one table row scatter by about this much (39–47% for NVLink A100/H100 clusters),
# so a figure within it of the row is what well-run jobs of that class and size reach.
TYPICAL_BAND = 0.05


class MfuJudgementRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mfu: float = Field(gt=0, lt=1, description="Measured MFU as a fraction of dense BF16 peak (0.38 for 38%).")
    gpu: str = Field(description="GPU name or alias.")
    num_gpus: int = Field(ge=1, description="GPUs in the training job.")


class MfuJudgement(BaseModel):
    gpu_name: str
    num_gpus: int
    stated: float
    typical: float = Field(description="The table's MFU for this GPU class and cluster size.")
    band: float
    verdict: Literal["below", "typical", "above"]
    gpu_class: GpuClass
    basis: Text = Field(description="The published runs or assumption behind the typical figure.")


def judge_mfu(request: MfuJudgementRequest, catalog: Catalog) -> MfuJudgement:
    gpu = catalog.gpu(request.gpu)
    row = default_mfu_row(gpu, request.num_gpus)
    gap = request.mfu - row.mfu
    verdict = "typical" if abs(gap) <= TYPICAL_BAND else "above" if gap > 0 else "below"
    return MfuJudgement(gpu_name=gpu.name, num_gpus=request.num_gpus, stated=request.mfu, typical=row.mfu, band=TYPICAL_BAND,
                        verdict=verdict, gpu_class=gpu_class(gpu), basis=row.basis)  # fmt: skip
