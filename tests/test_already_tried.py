"""The already_tried slot: changes a user says were made already are read, and never suggested back.

Wording here is our own (not from the issue, the training corpus or either understanding split)."""

from __future__ import annotations

import pytest

from advisor.nlu.reader import shared_understanding


@pytest.fixture(scope="module")
def understanding():
    return shared_understanding()


def tried_in(understanding, message):
    return understanding.read(message, []).frame.all("already_tried")


@pytest.mark.parametrize(
    ("message", "levers"),
    [
        ("went to a smaller batch and fewer workers already, the gpu is still starved", ["batch", "workers"]),
        ("even with shorter sequences the finetune runs out of memory", ["context"]),
        ("batch调小了，混合精度也开着，还是爆显存", ["batch", "precision"]),
        ("上下文调短了，混合精度也早开着，加载模型时照样OOM", ["context", "precision"]),
        ("mixed precision is on too and a smaller batch, still oom", ["batch", "precision"]),
        ("减少worker之后还是慢", ["workers"]),
        ("混合精度训练能省显存吗", []),
        ("would a smaller batch help with oom?", []),
    ],
)
def test_changes_said_to_be_made_fill_the_slot(understanding, message, levers):
    assert sorted(tried_in(understanding, message)) == sorted(levers)


def test_the_slot_has_a_label_in_both_languages():
    from advisor.nlu.slot_schema import slot_label

    assert slot_label("already_tried", "en") == "already tried" and slot_label("already_tried", "zh") == "已经试过"


def test_a_lever_already_pulled_is_named_and_not_suggested(offline_advisor):
    answer = offline_advisor.answer("went to a smaller batch already and the lora run on llama 3.1 8b still hits cuda oom", []).answer
    assert "Already tried: a smaller batch" in answer
    assert "per_device_train_batch_size" not in answer  # "halve the micro-batch" pulls the same lever


def test_a_lever_already_pulled_in_chinese_is_not_suggested(offline_advisor):
    answer = offline_advisor.answer("batch调小了还是爆显存，在跑Qwen2.5-7B的LoRA", []).answer
    assert "已经试过：调小批大小" in answer and "per_device_train_batch_size" not in answer


def test_a_micro_batch_of_one_is_not_halved(offline_advisor):
    answer = offline_advisor.answer("bs=1 and qlora on qwen2.5 14b still throws CUDA out of memory on my 3060", []).answer
    assert "per_device_train_batch_size" not in answer and "Already tried: a smaller batch" in answer
