"""The workload a conversation states, resolved once per turn into a typed ``Workload`` on the Ask: the model the
calculators size, the task (serving, LoRA, full fine-tuning...), the precision, context, batch and the parallel layout.

Resolving the model looks it up in the catalog and may read it another way than it was written ("GLM4" as the catalog's
only GLM-4, "qwq-32b" as a generic 32B dense model); each such reading is kept as a ``ModelNote`` (a key of
``advisor/offline/turn_text.yaml`` and its values), which the answer that uses the model says as an assumption. Which
slots a resolution read is kept too, so the answer can mark them used without reading them again."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from advisor.nlu.entity_words import is_other_model
from advisor.nlu.frame import Frame
from advisor.nlu.pattern_words import pattern
from knowledge.catalog import Catalog

DERIVED_MODEL = pattern("derived_model", flags=re.IGNORECASE)  # fine-tunes sold under their own names
SIZE_IN_NAME = re.compile(r"(\d+(?:\.\d+)?)\s?b(?![a-z])")

# a stated method as the calculators' task: "train" alone is a full fine-tune, "finetune" alone a LoRA
TASK_BY_WORKLOAD = {
    "inference": "inference",
    "lora": "lora",
    "qlora": "qlora",
    "full_finetune": "full_finetune",
    "pretrain": "pretrain",
    "train": "full_finetune",
    "finetune": "lora",
}
MODEL_SLOTS = ("model", "size")  # what resolving the model reads
TASK_SLOTS = ("method", "sharding", "optimizer")  # what the task is read from, in order


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class ModelNote(_Frozen):
    """An assumption resolving the model made: a key of ``advisor/offline/turn_text.yaml`` and its values."""

    key: str
    values: dict[str, str] = Field(default_factory=dict)


class Workload(_Frozen):
    """The job the conversation describes, as the calculators take it."""

    model: str | None = Field(None, description='The model sized: a catalog id, else a bare size such as "7B", else the name as said.')
    model_notes: tuple[ModelNote, ...] = Field((), description="How the model was read when not as written, in the order it was decided.")
    task: str = Field("inference", description="The calculators' task: inference, lora, qlora, full_finetune or pretrain.")
    task_named: bool = Field(False, description="The conversation named the task (otherwise serving is assumed and said so).")
    task_read_from: tuple[str, ...] = Field((), description="The slots looked at to decide the task, in order.")
    precision: str | None = Field(None, description="The precision stated, whether or not it suits the task.")
    context: int | None = Field(None, description="The context length stated, in tokens.")
    batch: int | None = Field(None, description="The batch size stated.")
    zero_stage: int | None = Field(None, description="The ZeRO stage a stated sharding implies (FSDP is stage 3).")
    tp: int | None = Field(None, description="The tensor-parallel degree stated.")
    pp: int | None = Field(None, description="The pipeline-parallel degree stated.")
    dp: int | None = Field(None, description="The data-parallel degree stated.")

    @classmethod
    def read(cls, frame: Frame, catalog: Catalog) -> Workload:
        model, notes = model_reference(frame, catalog)
        task, named, read_from = task_of(frame)
        return cls(
            model=model,
            model_notes=tuple(notes),
            task=task,
            task_named=named,
            task_read_from=read_from,
            precision=frame.get("precision"),
            context=frame.get("context"),
            batch=frame.get("batch"),
            zero_stage=zero_stage_of(frame),
            tp=frame.get("tp"),
            pp=frame.get("pp"),
            dp=frame.get("dp"),
        )


def task_of(frame: Frame) -> tuple[str, bool, tuple[str, ...]]:
    """The task, whether the user named it, and the slots looked at to decide it.

    ZeRO/FSDP or an optimizer only make sense for training, so they imply full fine-tuning."""
    for method in frame.all("method"):
        if method in TASK_BY_WORKLOAD:
            return TASK_BY_WORKLOAD[method], True, TASK_SLOTS[:1]
    if frame.get("sharding"):
        return "full_finetune", True, TASK_SLOTS[:2]
    if frame.get("optimizer"):
        return "full_finetune", True, TASK_SLOTS
    return "inference", False, TASK_SLOTS


def zero_stage_of(frame: Frame) -> int | None:
    for sharding in frame.all("sharding"):
        if sharding.startswith("zero-"):
            return int(sharding[-1])
        if sharding == "fsdp":
            return 3
    return None


def model_reference(frame: Frame, catalog: Catalog) -> tuple[str | None, list[ModelNote]]:
    """What the conversation names as the model (a catalog id, else a bare size such as '7B') and how it was read.

    A model the catalog does not know ("qwq-32b") is sized as a generic dense model of the size in its name, and the
    answer says so."""
    notes: list[ModelNote] = []
    models = list(dict.fromkeys(frame.all("model")))
    params = frame.get("size")
    if models and params and all(is_other_model(n) for n in models):
        # "a 14B model plus a bge embedding and reranker": the size is the language model; the others sit beside it
        size_b = f"{params / 1e9:g}B"
        notes += [ModelNote(key="other_model_left_out", values={"other": other, "label": size_b}) for other in models]
        return size_b, notes
    if models:
        name = _language_model(models, catalog, notes)
        if catalog.find_model(name) is not None:
            _say_whose_shapes(frame, catalog, name, notes)
            return name, notes
        size = SIZE_IN_NAME.search(name)
        if size is None:
            only = catalog.models_extending(name)
            if len(only) == 1:  # "GLM4": the catalog has one model by that name
                notes.append(ModelNote(key="model_read_as_only", values={"name": name, "model": only[0].name}))
                return only[0].id, notes
        # the size in its name, else the size the user gave ("a 175b gpt-3 style model")
        size_b = size.group(1) if size else (f"{params / 1e9:g}" if params else None)
        newest = catalog.model_of_name_and_size(name[: size.start()].strip(" -_"), float(size_b)) if size and size_b else None
        if newest is not None:
            notes.append(ModelNote(key="model_read_as_newest", values={"name": name, "model": newest.name, "family": newest.family}))
            return newest.id, notes
        if size_b:
            notes.append(ModelNote(key="model_sized_generic", values={"name": name, "size_b": size_b}))
            return f"{size_b}B", notes
        return name, notes  # the tool explains that it does not know it, with suggestions
    if params:
        return f"{params / 1e9:g}B", notes
    return None, notes


def _language_model(names: list[str], catalog: Catalog, notes: list[ModelNote]) -> str:
    """"bge-m3 and qwen2.5 7b": the language model is the one sized; a model of another kind beside it is said to be left out."""
    llms = [name for name in names if not is_other_model(name)]
    if not llms:
        return names[0]
    label = catalog.model(llms[0]).name if catalog.find_model(llms[0]) else llms[0]
    notes += [ModelNote(key="other_model_left_out", values={"other": other, "label": label}) for other in names if is_other_model(other)]
    return llms[0]


def _say_whose_shapes(frame: Frame, catalog: Catalog, model_id: str, notes: list[ModelNote]) -> None:
    """"qwen2.5-coder 32b" and "r1 distill 14b" are sized as the base model whose shapes they keep: said, so that the
    base model's name in the answer does not look like a misreading."""
    label = catalog.model(model_id).name
    for said in (v.surface for v in frame.slots.get("model", []) if v.value == model_id):
        if DERIVED_MODEL.search(said) and not DERIVED_MODEL.search(label):
            notes.append(ModelNote(key="derived_model_shapes", values={"said": said, "label": label}))
            return
