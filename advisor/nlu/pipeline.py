"""The understanding pipeline's declared order and settings (``pipeline.yaml``), validated once at start-up.

Every hyperparameter and threshold the stages use is read from here, so tuning one is a change of data that
the training fingerprint sees; a missing or unknown key, or a stage out of order, is refused with the key named."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

PIPELINE_FILE = Path(__file__).parent / "pipeline.yaml"
# The order is fixed by what each stage reads: roles need the intent, the thread needs the roles, the Ask needs the state.
STAGE_ORDER = ("extract", "classify", "tag_roles", "continue_thread", "dialogue_state", "ask")
Stage = Literal["extract", "classify", "tag_roles", "continue_thread", "dialogue_state", "ask"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClassifySettings(_Strict):
    char_ngrams: tuple[int, int] = Field(description="Character n-gram lengths of the TF-IDF features (within word boundaries).")
    word_ngrams: tuple[int, int] = Field(description="Word n-gram lengths of the TF-IDF features.")
    C: float = Field(gt=0, description="Inverse regularisation strength of the intent classifier.")
    solver: str
    tol: float = Field(gt=0)
    max_iter: int = Field(gt=0)
    held_out_folds: int = Field(ge=2, description="Folds for the held-out intent probabilities the continuation model learns from.")
    min_confidence: float = Field(ge=0, le=1, description="Below this the intent is a guess: a knowledge answer is given instead.")
    guard_confidence: float = Field(ge=0, le=1, description="Below this a refusal, off-topic reply or greeting yields to the next intent.")
    calculation_mass: float = Field(
        ge=0, le=1, description="An unsure reading whose calculation tasks together hold this much probability is unsure which calculation, not whether one."
    )
    out_of_scope_floor: float = Field(
        ge=0, le=1, description="An off-topic probability at or above this, on a message with no calculation the classifier is sure of, gets the "
        "out-of-scope reply rather than a card matched by one of its words (calibrated on tests/test_out_of_scope.py's examples).",
    )


class TagRolesSettings(_Strict):
    featurizers: list[str] = Field(min_length=1, description="The features the tagger sees of each value, by the name each is registered under in features.py.")
    C: float = Field(gt=0, description="Inverse regularisation strength of the role tagger.")
    tol: float = Field(gt=0)
    max_iter: int = Field(gt=0)


class ContinueThreadSettings(_Strict):
    C: float = Field(gt=0, description="Inverse regularisation strength of the continuation model.")
    max_iter: int = Field(gt=0)
    continues: float = Field(ge=0, le=1, description="Probability from which a message continues the open question.")
    short_chars: int = Field(gt=0, description="A message this short (characters) is an amendment, not a full question.")
    seen_with_task: float = Field(ge=0, le=1, description="Share of a task's questions a slot must appear in to belong to it.")
    conversation_weight: float = Field(gt=0, description="Training weight of a turn in its real conversation over a made-up pairing.")


class DialogueStateSettings(_Strict):
    history_turns: int = Field(ge=0, description="Earlier user turns read to rebuild the dialogue state.")
    sure_injection: float = Field(ge=0, le=1, description="An injection this sure continues no thread.")
    sure_of_role: float = Field(ge=0, le=1, description="A tagger this sure that an amount is a new slot is believed.")
    magnitude_spread: float = Field(gt=1, description="An amount restates one within this factor of it.")


class Pipeline(_Strict):
    stages: list[Stage] = Field(description="The stages in the order a message passes them.")
    extractors: list[str] = Field(min_length=1, description="The value extractors of the extract stage, in the order they claim the text.")
    classify: ClassifySettings
    tag_roles: TagRolesSettings
    continue_thread: ContinueThreadSettings
    dialogue_state: DialogueStateSettings

    @field_validator("stages")
    @classmethod
    def _in_order(cls, stages: list[str]) -> list[str]:
        if tuple(stages) != STAGE_ORDER:
            raise ValueError(f"the stages run in the order {' → '.join(STAGE_ORDER)}, each once; got {' → '.join(stages)}")
        return stages

    @field_validator("extractors")
    @classmethod
    def _each_once(cls, extractors: list[str]) -> list[str]:
        repeated = sorted({name for name in extractors if extractors.count(name) > 1})
        if repeated:
            raise ValueError(f"each extractor runs once; listed more than once: {', '.join(repeated)}")
        return extractors


class PipelineError(ValueError):
    """pipeline.yaml is malformed: the message names each bad key and what is wrong with it."""


def load_pipeline(path: Path = PIPELINE_FILE) -> Pipeline:
    try:
        return Pipeline.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(part) for part in e['loc']) or '(top)'}: {e['msg']}" for e in error.errors())
        raise PipelineError(f"{path.name} is not a valid pipeline: {problems}") from None


PIPELINE = load_pipeline()
