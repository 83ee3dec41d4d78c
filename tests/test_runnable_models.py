""""What can I run on my GPUs?": the largest current model per precision, sized and timed by the tools."""

from __future__ import annotations

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.serving import load_serving_data
from tools.memory.runnable import RunnableRequest, runnable_models


@pytest.fixture(scope="module")
def run():
    catalog, serving = load_catalog(), load_serving_data()
    return lambda **kw: runnable_models(RunnableRequest(**kw), catalog, serving)


def test_each_precision_names_the_largest_current_model_that_fits(run):
    pair = run(gpu="rtx-3090", num_gpus=2)
    by_format = {p.precision: p for p in pair.picks}
    assert by_format["awq-int4"].params_b > 60 and by_format["awq-int4"].tight  # a 70B in 4-bit, with little to spare
    assert 10 < by_format["bf16"].params_b < 20 and by_format["int8"].params_b < by_format["awq-int4"].params_b
    assert "fp8" not in by_format  # Ampere has no FP8 tensor cores: 8-bit means INT8 there
    assert all(p.per_gpu_gb < 25.8 and p.decode_tokens_per_s for p in pair.picks)
    assert pair.memory_gb == 48


def test_a_model_that_ships_quantised_is_sized_as_shipped_and_listed_once(run):
    box = run(gpu="h200-sxm", num_gpus=8)
    ids = [p.model_id for p in box.picks]
    assert len(ids) == len(set(ids))  # a narrower format that buys no larger model is not repeated
    deepseek = [p for p in box.picks if p.model_id.startswith("deepseek")]
    assert all(p.precision == "fp8" for p in deepseek)
    one = run(gpu="h100-sxm")
    assert all(not (p.model_id.startswith("gpt-oss") and p.precision != "mxfp4") for p in one.picks)


def test_memory_alone_sizes_without_a_speed_and_no_hardware_is_a_clear_error(run):
    card = run(gpu_memory_gb=48)
    assert card.picks and all(p.decode_tokens_per_s is None for p in card.picks)
    tiny = run(gpu_memory_gb=1.5)
    assert tiny.picks == []
    with pytest.raises(AdvisorError) as error:
        run()
    assert error.value.zh and error.value.en


@pytest.mark.parametrize(
    ("question", "says"),
    [("we've got three spare A6000s, which open models could they host?", "can serve up to"),
     ("手上有两张L20，能部署什么模型", "最大能部署")],
)
def test_the_answer_leads_with_the_largest_model_and_its_numbers(offline_advisor, question, says):
    response = offline_advisor.answer(question, [])
    assert any(c.name == "runnable_models" for c in response.tool_calls)
    first = response.summary.split("\n\n")[0]
    assert says in first and "GB" in first


def test_an_empty_card_name_is_the_same_clear_error_as_none(run):
    with pytest.raises(AdvisorError) as error:
        run(gpu="")
    assert error.value.code == "missing_gpu"
