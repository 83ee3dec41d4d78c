"""``Ask.workload``: the workload a conversation states, resolved once per turn (advisor/nlu/workload.py), with how the
model was read kept as notes and the slots looked at named, so the answers say the one and mark the other."""

from __future__ import annotations

import pytest

from advisor.nlu.frame import Frame, SlotValue
from advisor.nlu.workload import Workload
from knowledge.catalog import load_catalog


def frame(**slots) -> Frame:
    return Frame({slot: [SlotValue(value, str(value)) for value in (values if isinstance(values, list) else [values])] for slot, values in slots.items()})


@pytest.mark.parametrize(
    ("slots", "task", "named", "read_from"),
    [
        ({}, "inference", False, ("method", "sharding", "optimizer")),
        ({"method": "train"}, "full_finetune", True, ("method",)),
        ({"method": "finetune"}, "lora", True, ("method",)),
        ({"sharding": "zero-2"}, "full_finetune", True, ("method", "sharding")),
        ({"optimizer": "adamw"}, "full_finetune", True, ("method", "sharding", "optimizer")),
    ],
)
def test_the_task_and_where_it_was_read(slots, task, named, read_from):
    workload = Workload.read(frame(**slots), load_catalog())
    assert (workload.task, workload.task_named, workload.task_read_from) == (task, named, read_from)


def test_the_zero_stage_and_stated_values():
    workload = Workload.read(frame(sharding="fsdp", precision="bf16", context=8192, batch=4, tp=2), load_catalog())
    assert (workload.zero_stage, workload.precision, workload.context, workload.batch, workload.tp) == (3, "bf16", 8192, 4, 2)


def test_a_model_the_catalog_lacks_is_sized_by_the_size_in_its_name_and_the_reading_is_a_note():
    workload = Workload.read(frame(model="acme-chat-13b"), load_catalog())
    assert workload.model == "13B"
    assert [note.key for note in workload.model_notes] == ["model_sized_generic"]


def test_a_bare_size_needs_no_note():
    workload = Workload.read(frame(size=7e9), load_catalog())
    assert workload.model == "7B" and workload.model_notes == ()
