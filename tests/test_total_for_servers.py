"""One sum quoted for several servers is what buying them costs: the role tagger reads it from a declared featurizer
(pipeline.yaml tag_roles.featurizers: total_for_servers), not from whichever words training happened to pair with it."""

from __future__ import annotations

import pytest

from advisor.name_matcher import normalize_text
from advisor.nlu.features import FEATURIZERS, ROLE_FEATURIZERS, declared_featurizers, role_features
from advisor.nlu.pipeline import PIPELINE, PipelineError
from advisor.nlu.reader import shared_understanding
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog

# Several servers and one sum for them all, in either language (wording of this test, not of the training files)
QUOTED_TOTALS = [
    "the reseller wants $900k for two servers in total, should we rent instead",
    "a quote of $1.2M total for 3 nodes, or rent h100s?",
    "报价是五台合计六百万，要不要自己买",
    "两台机器加起来一共300万，比租便宜吗",
]
# An amount that is not the price of the servers: a rent by the hour, a sum with no servers counted, a price per kWh
NOT_TOTALS = [
    "two servers rent at $40 an hour in total",
    "we spent $300k in total on cloud last year",
    "两台服务器一共要交电费，电价0.7元/度",
]


def _money_features(text: str) -> dict[str, float]:
    values = find_values(text, load_catalog())
    (money,) = [v for v in values if v.kind in ("money", "thousands")]
    return role_features(normalize_text(text), money, values, "tco")


@pytest.mark.parametrize("text", QUOTED_TOTALS)
def test_a_sum_for_counted_servers_lights_the_feature(text):
    assert _money_features(text).get("total_for_servers") == 1.0


@pytest.mark.parametrize("text", NOT_TOTALS)
def test_a_rent_or_a_sum_without_servers_does_not(text):
    assert "total_for_servers" not in _money_features(text)


@pytest.mark.parametrize("text", QUOTED_TOTALS)
def test_the_tagger_reads_the_sum_as_the_servers_price(text):
    reading = shared_understanding().read_one(text)
    roles = {t.role for t in reading.tagged if t.value.kind in ("money", "thousands")}
    assert roles == {"server_price"}, (text, roles)


def test_the_learned_weight_points_to_a_purchase_not_a_rent():
    model = shared_understanding().model
    column = model.vectorizer.vocabulary_["total_for_servers"]
    weight = dict(zip(model.roles, model.role_model.coef_[:, column]))
    assert weight["server_price"] > max(weight["cloud_price"], weight["budget"], weight["electricity_price"])


def test_the_pipeline_declares_every_featurizer_once():
    assert ROLE_FEATURIZERS == tuple(PIPELINE.tag_roles.featurizers) and set(ROLE_FEATURIZERS) == set(FEATURIZERS)
    with pytest.raises(PipelineError, match="unknown \\['spelling_mistake'\\]"):
        declared_featurizers([*ROLE_FEATURIZERS, "spelling_mistake"])
    with pytest.raises(PipelineError, match="not listed \\['total_for_servers'\\]"):
        declared_featurizers([name for name in ROLE_FEATURIZERS if name != "total_for_servers"])
