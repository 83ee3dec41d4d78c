"""Everything that reads user text is total: any string in (prose, binary-ish junk, log fragments,
huge repeats), a result out, never an exception other than the documented ``AdvisorError``."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from advisor.language import analyze_language
from advisor.nlu.reader import shared_understanding
from advisor.validation import non_finite_numbers
from knowledge.bilingual import AdvisorError
from knowledge.catalog import load_catalog
from knowledge.models import ModelSpec
from tools.models.resolve import resolve_model
from tools.quantities import find_numbers, parse_number, parse_param_count
from tools.troubleshoot.diagnose import TroubleshootRequest, diagnose
from tools.troubleshoot.parsers import PARSERS
from tools.troubleshoot.rulebook import load_rulebook

catalog = load_catalog()
rules = load_rulebook()

# Pieces of real GPU logs and questions, so generated text reaches the parsers' deeper branches
# (field tables, unit conversions, arithmetic on parsed numbers) instead of stopping at the anchors.
FRAGMENTS = [
    "CUDA out of memory. Tried to allocate ", " GiB", " MiB", " KiB", "total capacity of ", " already allocated",
    " of which ", " is free", "Process 123 has ", " memory in use", "(GPU 0; ", " reserved in total by PyTorch",
    "Killed process 42", "NVRM: Xid (PCI:0000:3b:00): ", "Xid", " pid=", ", name=python", "GPU 00000000:3B:00.0\n",
    "    Clocks Event Reasons\n", "        HW Slowdown : Active\n", "    Temperature\n", "        GPU Current Temp : ",
    " C\n", "    GPU Power Readings\n", "        Power Draw : ", " W\n", "    ECC Errors\n        Volatile\n",
    "    Remapped Rows\n", "        Pending : Yes\n", "NCCL WARN ", "NCCL INFO ", "NET/IB : Got completion with error ",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=",
    ") ran for ", " milliseconds before timing out.", "LnkCap:\tPort #0, Speed 16GT/s, Width x16",
    "LnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)", "NVIDIA-SMI 535.104.05   Driver Version: ",
    "CUDA Version: 12.2", "| N/A   34C    P0    70W / 700W |", "GPU util 3%", "利用率只有 5%", "温度 95 度",
    "显存不够", "OOM", "H100", "70B", "七十亿", "1.5万亿", "8x7B", "4卡", "两台", "¥", "$", "%", "\n", " ", ":",
    "9" * 400, "-1", "1e999", "nan", "inf", "0", "\x00", "\x1b[31m", "\ud800", "`", "<script>",
]  # fmt: skip

prose = st.text()
binaryish = st.binary(max_size=400).map(lambda raw: raw.decode("utf-8", "surrogateescape"))
latin = st.binary(max_size=400).map(lambda raw: raw.decode("latin-1"))
log_like = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8), st.integers().map(str), st.floats().map(str)), max_size=40
).map("".join)
huge_repeat = st.tuples(st.one_of(st.sampled_from(FRAGMENTS), st.text(min_size=1, max_size=30)), st.integers(1_000, 12_000)).map(
    lambda pair: pair[0] * pair[1]
)
hostile_text = st.one_of(prose, binaryish, latin, log_like, huge_repeat)
total = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_finite(value: object) -> None:
    bad = list(non_finite_numbers(value))
    assert not bad, bad[:3]


OVERFLOWING_LOG = "CUDA out of memory. Tried to allocate " + "9" * 400 + " GiB\nNVRM: Xid (PCI:0000:3b:00): 79, pid=" + "9" * 400


@total
@given(hostile_text)
@example(OVERFLOWING_LOG)
def test_log_parsers_never_raise_and_give_finite_numbers(text):
    line_count = text.count("\n") + 1
    for name, parser in PARSERS.items():
        records = parser.function(text)
        assert isinstance(records, list), name
        for record in records:
            assert 1 <= record.line <= line_count, (name, record.line)
            assert all(1 <= line <= line_count for line in record.field_lines.values()), name
            assert_finite(record.values)


@total
@given(hostile_text, st.sampled_from([None, "en", "zh"]), st.one_of(st.none(), st.text(max_size=30)))
@example(OVERFLOWING_LOG, None, None)
def test_diagnose_is_total_except_for_empty_or_binary_input(text, language, model):
    try:
        result = diagnose(TroubleshootRequest(text=text, language=language, model=model), rules)
    except AdvisorError as error:
        assert error.code in ("empty_input", "binary_input") and error.en and error.zh
        return
    assert_finite(result)
    assert result.analyzed_bytes <= result.input_bytes
    assert [f.score for f in result.findings] == sorted((f.score for f in result.findings), reverse=True)


@total
@given(hostile_text)
def test_number_readers_are_total(text):
    for reader in (parse_number, parse_param_count):
        value = reader(text)
        assert value is None or (isinstance(value, float) and math.isfinite(value))
    count = parse_param_count(text)
    assert count is None or count >= 1e6
    normalized_length = len(text) * 3 + 10  # NFKC may expand characters; spans index the normalised text
    for match in find_numbers(text):
        assert 0 <= match.start < match.end <= normalized_length and math.isfinite(match.value)


@total
@given(hostile_text)
def test_resolve_model_gives_a_spec_or_a_bilingual_error(text):
    try:
        spec = resolve_model(text, catalog)
    except AdvisorError as error:
        assert error.en and error.zh and len(error.en) < 5000
        return
    assert isinstance(spec, ModelSpec) and 0 < spec.params_b <= 100_000


@total
@given(hostile_text)
def test_message_understanding_is_total(text):
    reading = shared_understanding().read_one(text)
    assert reading.language in ("en", "zh") and 0.0 <= reading.confidence <= 1.0
    assert all(value.value is not None for values in reading.frame.slots.values() for value in values)
    info = analyze_language(text)
    assert info.language in ("en", "zh")
