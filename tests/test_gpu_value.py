"""What a unit of training compute or serving bandwidth costs on each card, from catalog prices and specs."""

from __future__ import annotations

import pytest

from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from tools.gpu_specs import CompareRequest, compare_gpus


def compare(*gpus: str, **options):
    return compare_gpus(CompareRequest(gpus=list(gpus), **options), load_catalog())


def test_prices_in_two_currencies_are_compared_in_one_with_the_rate_in_the_formula():
    catalog = load_catalog()
    h20, ascend = catalog.gpu("h20"), catalog.gpu("ascend-910b")
    assert (h20.purchase_price.currency, ascend.purchase_price.currency) == ("USD", "CNY")
    result = compare("H20", "910B", currency="CNY", usd_to_cny=7.0)
    rows = {row.gpu.id: row for row in result.rows}
    assert rows["h20"].price_per_bf16_tflops.amount == pytest.approx(h20.purchase_price.amount * 7.0 / h20.bf16_tflops, abs=0.01)
    assert "× 7 CNY/USD" in rows["h20"].price_per_bf16_tflops.formula
    assert rows["ascend-910b"].price_per_tb_s.amount == pytest.approx(ascend.purchase_price.amount / (ascend.bandwidth_gbs / 1000), abs=0.01)
    cheaper = min(rows.values(), key=lambda row: row.price_per_bf16_tflops.amount).gpu.id
    assert result.best_training_value == cheaper and result.currency == "CNY"


def test_the_rented_ratio_stands_in_when_fewer_than_two_cards_have_a_purchase_price():
    result = compare("A10", "H100")  # the A10 has no dated purchase price, only rents
    assert result.best_training_value is None  # only one of them is priced to buy
    rows = {row.gpu.id: row for row in result.rows}
    per_pflops = {gpu: row.rent_per_bf16_pflops.amount for gpu, row in rows.items()}
    assert result.best_training_rent == min(per_pflops, key=per_pflops.get)
    one = compare("H100")
    assert one.best_training_value is None and one.best_training_rent is None  # nothing to compare it with


def test_an_unknown_currency_is_a_bilingual_error():
    with pytest.raises(AdvisorError) as error:
        compare("H100", "A100", currency="JPY")
    assert error.value.code == "unknown_currency"
