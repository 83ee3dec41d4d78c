"""Expected NCCL bus bandwidth per path (inter-node NICs, NVLink, PCIe): ``link_expectations.yaml`` as validated data."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.catalog import read_table

DATA_FILE = Path(__file__).with_name("link_expectations.yaml")
Path_ = Literal["inter_node", "nvlink", "pcie"]
Shape = Literal["below_one_nic", "one_nic", "part_of_nics", "nvlink_short", "pcie_short"]


class PathExpectation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    efficiency: tuple[float, float] = Field(description="busbw as a share of the raw bandwidth per direction, low and high.")
    source: str = Field(min_length=10)

    @model_validator(mode="after")
    def _ordered(self) -> PathExpectation:
        low, high = self.efficiency
        if not 0 < low <= high <= 1.5:
            raise ValueError(f"efficiency {self.efficiency} must be 0 < low <= high <= 1.5")
        return self


class LinkExpectations(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    busbw_definition: str = Field(min_length=10)
    paths: dict[Path_, PathExpectation]
    far_below_fraction: float = Field(gt=0, lt=1)
    bridge_max_gpus: int = Field(ge=2)
    suspects: dict[Shape, list[str]]

    @model_validator(mode="after")
    def _complete(self) -> LinkExpectations:
        missing = set(Path_.__args__) - set(self.paths)  # type: ignore[attr-defined]
        if missing:
            raise ValueError(f"paths needs {sorted(missing)}")
        return self


@lru_cache(maxsize=1)
def load_link_expectations(path: Path = DATA_FILE) -> LinkExpectations:
    return read_table(path, LinkExpectations, "link-expectation table")
