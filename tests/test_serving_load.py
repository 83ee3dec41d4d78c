"""Serving answers read the load right and meet the user's targets.

A request rate is not a concurrency (Little's law turns it into requests in flight); a per-user target the
setup misses leads the answer, with the bandwidth arithmetic when one user cannot reach it; and the figures an
answer shows agree with each other (per-user × users ≈ total, no headroom below −100 %, no "?" count).
"""

from __future__ import annotations

import re

import pytest

from advisor.contract import ChatTurn
from advisor.nlu.values import find_values
from knowledge.catalog import load_catalog
from knowledge.concepts import load_concepts
from tools.serving.load import DecodeCeiling, RateLoad, decode_ceiling, rate_load

# --- the pure conversion -------------------------------------------------------------------------


def test_littles_law_counts_the_requests_in_flight():
    # 4 requests/s, each 0.5 s to its first token then the other 200 tokens streamed at 20 tokens/s: 10.5 s each
    law = rate_load(RateLoad(requests_per_s=4, prompt_tokens=1000, output_tokens=201, ttft_ms=500, tokens_per_s_per_user_streaming=20,
                             output_tokens_per_s_total=1000, in_flight=50, prefill_tokens_per_s=20000))  # fmt: skip
    assert law.tokens_per_s_per_user_streaming == pytest.approx(20)
    assert law.seconds_per_request == pytest.approx(10.5)
    assert law.in_flight == pytest.approx(42)
    assert law.keeps_up  # 42 in flight fit in the 50 the figures were measured at
    assert law.prefill_tokens_per_s_needed == pytest.approx(4000) and law.prefill_share == pytest.approx(0.2)
    assert law.output_tokens_per_s_needed == pytest.approx(804)
    assert law.sustainable_requests_per_s == pytest.approx(50 / 10.5, rel=1e-3)


@pytest.mark.parametrize("model, held_more", [("mixtral-8x7b", 3), ("llama-3.1-70b", 1)])
def test_the_decode_ceiling_is_the_weights_read_per_token_not_the_weights_held(model, held_more):
    """An MoE reads its active experts per token (several times less than it holds); a dense model all but the input
    embedding table. The one ceiling every serving sentence uses divides the bandwidth by the bytes read."""
    from advisor.deps import shared_registry
    from advisor.offline.tasks.serving.serving import read_ceiling, weights_read_gb

    r = shared_registry().call("estimate_throughput", {"model": model, "gpu": "h100-sxm", "num_gpus": 2, "batch": 1}).result
    card = load_catalog().gpu("h100-sxm")
    read = weights_read_gb(r)
    assert 0 < read < r["weights_gb_per_gpu"] and r["weights_gb_per_gpu"] / read >= held_more
    assert read_ceiling(r, card).tokens_per_s == pytest.approx(card.bandwidth_gbs / read, rel=1e-3)
    assert read_ceiling(r, None) is None and read_ceiling({**r, "lines": []}, card) is None


def test_a_rate_beyond_the_load_measured_does_not_keep_up():
    law = rate_load(RateLoad(requests_per_s=10, prompt_tokens=500, output_tokens=200, ttft_ms=200, tokens_per_s_per_user_streaming=20,
                             output_tokens_per_s_total=1000, in_flight=50, prefill_tokens_per_s=20000))  # fmt: skip
    assert law.in_flight > 50 and not law.keeps_up
    assert law.sustainable_requests_per_s < 10


def test_the_conversion_is_written_out_in_both_languages():
    law = rate_load(RateLoad(requests_per_s=2, prompt_tokens=800, output_tokens=300, ttft_ms=100, tokens_per_s_per_user_streaming=30,
                             output_tokens_per_s_total=600, in_flight=20, prefill_tokens_per_s=9000))  # fmt: skip
    in_flight = next(item for item in law.lines if item.key == "in_flight")
    assert "2 requests/s" in in_flight.formula and "每秒 2 个请求" in in_flight.formula_zh


def test_decode_ceiling_is_bandwidth_over_bytes_per_token():
    ceiling = decode_ceiling(DecodeCeiling(weights_read_gb=35, bandwidth_gb_s=3350))
    assert ceiling.tokens_per_s == pytest.approx(95.714, rel=1e-3)
    assert "3,350 GB/s" in ceiling.formula.en and "3,350 GB/s" in ceiling.formula.zh


# --- reading a rate ------------------------------------------------------------------------------


def _rates(text: str) -> list[tuple[float, str]]:
    return [(v.value, v.unit) for v in find_values(text, load_catalog()) if v.kind == "request_rate"]


@pytest.mark.parametrize(
    "text, per_second, unit",
    [
        ("we see roughly 40 requests per second at peak", 40, "requests/second"),
        ("traffic is 6k RPM on weekdays", 100, "requests/minute"),
        ("peak load 25 req/s", 25, "requests/second"),
        ("qps of 12 for the search bot", 12, "requests/second"),
        ("高峰每秒大概80个请求", 80, "requests/second"),
        ("每秒要处理60个请求", 60, "requests/second"),
        ("每分钟1200次调用", 20, "requests/minute"),
        ("线上QPS峰值15", 15, "requests/second"),
        ("大约300请求/秒", 300, "requests/second"),
    ],
)
def test_a_rate_is_read_per_second(text, per_second, unit):
    found = _rates(text)
    assert found == [(pytest.approx(per_second), unit)]


@pytest.mark.parametrize("text", ["30 concurrent users", "同时在线40人", "200 requests in flight", "一共500个请求"])
def test_counts_in_flight_are_not_rates(text):
    assert _rates(text) == []


# --- answers -------------------------------------------------------------------------------------


def _answer(offline_advisor, *turns: str):
    history, response = [], None
    for text in turns:
        response = offline_advisor.answer(text, [ChatTurn.model_validate(h) for h in history])
        history += [{"role": "user", "content": text}, {"role": "assistant", "content": response.answer}]
    return response


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.?\d*", text)]


@pytest.mark.parametrize(
    "question, says",
    [
        ("How many H100s would carry Llama 3.1 8B at 30 requests per second?", "Little's law"),
        ("Qwen2.5-7B 每秒要处理60个请求，需要几张L40S？", "利特尔法则"),
    ],
)
def test_a_rate_is_sized_as_requests_in_flight(offline_advisor, question, says):
    response = _answer(offline_advisor, question)
    first = response.summary.splitlines()[0]
    assert says in first
    assert "30 requests/s" in first or "每秒 60 个请求" in first
    # the assumption line spells the conversion out: rate × time per request = in flight
    assert "Little" in response.answer or "利特尔" in response.answer


@pytest.mark.parametrize(
    "question, verdict",
    [
        ("Llama 3.1 8B on one H100, we get 1 request per second with 500-token prompts and 200-token replies. Can it keep up?", "**Yes"),
        ("Qwen2.5-14B 放在一张L4上，每秒20个请求，输入2000 token、输出500 token，扛得住吗？", "**扛不住"),
        ("Qwen2.5-14B on a single L4 at 20 QPS, 2000 tokens in and 500 out: will that hold?", "**No"),
    ],
)
def test_keep_up_questions_get_a_verdict_first(offline_advisor, question, verdict):
    first = _answer(offline_advisor, question).summary.splitlines()[0]
    assert first.startswith(verdict)


def test_an_overloaded_setup_names_how_many_would_carry_it(offline_advisor):
    first = _answer(
        offline_advisor, "20 QPS of Qwen2.5-14B on a single L4, 2000 tokens in and 500 out: will that hold?"
    ).summary.splitlines()[0]
    assert "copies of this setup" in first and "L4" in first


@pytest.mark.parametrize(
    "question, no",
    [
        ("Will A100 80GB cards give a single user 120 tokens/s on Llama 3.1 70B?", "**No"),
        ("用A100 80G跑Llama 3.1 70B，单个用户能到每秒120个token吗？", "**做不到"),
    ],
)
def test_an_impossible_target_says_no_with_the_bandwidth_arithmetic(offline_advisor, question, no):
    summary = _answer(offline_advisor, question).summary
    first = summary.splitlines()[0]
    assert first.startswith(no)
    assert "GB/s" in first  # bandwidth ÷ bytes per token
    assert "What meets it" in summary or "能达标的配置" in summary or "fastest tried" in summary or "试过最快" in summary


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-72B for 100 users at once, each needs at least 30 tokens/s, how many H100?",
        "Qwen2.5-72B 同时给100个人用，每人至少每秒30个token，需要几张H100？",
    ],
)
def test_the_recommended_count_meets_the_stated_speed(offline_advisor, question):
    first = _answer(offline_advisor, question).summary.splitlines()[0]
    match = re.search(r"(?:per user|每用户约) ≈? ?([\d.,]+) (?:tokens/s|token/s)", first)
    assert match, first
    assert float(match.group(1).replace(",", "")) >= 30


@pytest.mark.parametrize(
    "turns",
    [
        ("Qwen2.5-72B for 100 users at once, each needs at least 30 tokens/s, how many H100?", "and with L20 cards?"),
        ("Qwen2.5-72B 同时给100个人用，每人至少每秒30个token，需要几张H100？", "换成L20呢？"),
    ],
)
def test_a_card_that_cannot_meet_the_target_names_what_can(offline_advisor, turns):
    summary = _answer(offline_advisor, *turns).summary
    assert "L20" in summary.splitlines()[0]
    assert "What meets it" in summary or "能达标的配置" in summary or "fastest tried" in summary or "试过最快" in summary


# --- consistency over a grid of questions ---------------------------------------------------------

GRID = [
    "how fast is Llama 3.1 70B on 4x A100 for 48 users",
    "Llama-3.1-70B 在 4 张 A100 上 48 路并发，每个用户多少 token/s",
    "How many chats can 8 H20s hold for Qwen2.5-72B?",
    "8卡H20跑Qwen2.5-72B最多并发多少",
    "Qwen2.5-32B on 2 H100 with 32 concurrent users, what speed?",
    "两张H100跑Qwen2.5-32B，32个用户同时用，速度多少",
    "Llama 3.1 8B on one L40S for 100 users, tokens per second?",
]
PAIR = re.compile(r"≈ ([\d.,]+) tokens/s per user with ([\d.,]+) at once, ([\d.,]+) tokens/s in total|"
                  r"([\d.,]+) 路并发时每用户约 ([\d.,]+) token/s，总计约 ([\d.,]+) token/s|"
                  r"each user sees ≈ ([\d.,]+) tokens/s after a first token in ≈ [\d.,]+ ms \(([\d.,]+) tokens/s in total|"
                  r"每用户首 token 约 [\d.,]+ 毫秒，之后约 ([\d.,]+) token/s（总计 ([\d.,]+) token/s")  # fmt: skip
FITS = re.compile(r"\*\*≈ ([\d,]+) concurrent|\*\*约 ([\d,]+) 路并发|要求下约 ([\d,]+) 路并发")


def _value(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.mark.parametrize("question", GRID)
def test_the_per_user_figure_is_the_streaming_speed_and_the_total_is_at_the_load_served(offline_advisor, question):
    response = _answer(offline_advisor, question)
    summary = response.summary
    match = PAIR.search(summary)
    assert match, summary[:300]
    groups = [g for g in match.groups() if g is not None]
    if match.group(1) or match.group(4):
        per_user, users, total = (groups[0], groups[1], groups[2]) if match.group(1) else (groups[1], groups[0], groups[2])
    else:
        per_user, total = groups
        fits = FITS.search(summary)
        users = next(g for g in fits.groups() if g)
    results = [c.result for c in response.tool_calls if c.name == "estimate_throughput" and c.result]
    at_load = next(r for r in results if r["effective_batch"] == _value(users))  # the estimate at the load the lead names
    assert _value(per_user) == pytest.approx(at_load["tokens_per_s_per_user_streaming"], rel=0.03)
    assert _value(total) == pytest.approx(at_load["output_tokens_per_s_total"], rel=0.03)
    # streaming leaves each user's own prefill out (it is the first-token time), so it is above the total's share
    assert _value(per_user) * _value(users) >= _value(total) * 0.97


HEADROOM = re.compile(r"(?:headroom|余量)[^\d−-]{0,6}[−-]([\d,]+(?:\.\d+)?)\s*%|[−-]([\d,]+(?:\.\d+)?)%\s*\|")

COMPARISONS = [
    "RTX 3060 or A100 80GB for serving Llama 3.1 70B?",
    "3060还是A100 80G，部署Llama 3.1 70B用哪个？",
    "2x 4090 or one L40S for Qwen2.5-32B inference?",
    "两张4090还是一张L40S跑Qwen2.5-32B推理？",
]


@pytest.mark.parametrize("question", COMPARISONS)
def test_a_comparison_shows_no_impossible_headroom_and_no_unknown_count(offline_advisor, question):
    answer = _answer(offline_advisor, question).answer
    for match in HEADROOM.finditer(answer):
        assert _value(next(g for g in match.groups() if g)) <= 100, match.group()
    assert "?×" not in answer and "?x" not in answer


# --- serving11: whom a speed is of, a single stream judged, techniques judged (own wording, both languages) --------------

from advisor.nlu.ask import Ask  # noqa: E402
from advisor.nlu.question_parts import question_parts  # noqa: E402
from advisor.nlu.reader import shared_understanding  # noqa: E402
from tests.retrieval_support import served_cards  # noqa: E402


@pytest.fixture(scope="module")
def ask_of():
    understanding, catalog = shared_understanding(), load_catalog()
    return lambda message: Ask.read(understanding.read(message, []), catalog)


@pytest.mark.parametrize(
    "message, scope",
    [
        ("our cluster must put out 4000 tok/s in total for Mistral 7B, how many L40S?", "total"),
        ("整个集群合计要输出3000 token/s，跑Qwen2.5-7B要几张L20？", "total"),
        ("each of the 40 agents needs 30 tokens/s from Llama 3.1 8B on A100s", "per_user"),
        ("60个人同时用，每人要25 token/s，Qwen2.5-14B用几张4090？", "per_user"),
        ("we want 1500 tok/s for 300 employees with Qwen2.5-32B on H100s", "total"),  # above any per-user target: a total
        ("a chatbot for 80 users at 20 tok/s on Llama 3.1 8B, which GPU?", "per_user"),
    ],
)
def test_whom_a_speed_is_of_is_read_once(ask_of, message, scope):
    assert ask_of(message).throughput_scope == scope


@pytest.mark.parametrize(
    "question, lead, says",
    [
        ("Mistral 7B has to produce 4000 tokens/s in total for 600 users on L40S cards. How many do we need?", "× NVIDIA L40S", "in total"),
        ("600个用户合计需要4000 token/s，用L40S跑Mistral 7B，需要几张？", "张 NVIDIA L40S", "总输出"),
    ],
)
def test_a_total_throughput_is_sized_as_requests_not_as_each_users_speed(offline_advisor, question, lead, says):
    summary = _answer(offline_advisor, question).summary
    first = summary.splitlines()[0]
    assert lead in first and says in first, first
    assert "misses the target" not in summary and "达不到目标" not in summary
    # what each of the users would see if all generated at once is said, against the per-user floor the count keeps
    assert "A total, not a per-user speed" in summary or "这是总吞吐而不是每用户速度" in summary


@pytest.mark.parametrize(
    "question, verdict, aggregate",
    [
        ("Only 95 tok/s from Llama 3.1 8B on one H100 — terrible, isn't it? NVIDIA says thousands.", "**Normal for one stream", "requests at once"),
        ("一张H100跑Llama 3.1 8B才95 tok/s，这么慢正常吗？官方说能几千", "**单路来说正常", "路并发时总共"),
    ],
)
def test_a_single_stream_gets_its_verdict_ceiling_and_the_aggregate(offline_advisor, question, verdict, aggregate):
    answer = _answer(offline_advisor, question).answer
    first = answer.splitlines()[0]
    assert first.startswith(verdict) and ("ceiling" in first or "上限" in first), first
    assert aggregate in answer
    assert "PCIe" in answer and ("eager" in answer)  # which card and how it ran are checked


def _served_card_leads(response, card_id: str, language: str) -> None:
    """The card answered (its cited sources) and its verdict sentence opens the answer (cards are verdict-first)."""
    served = served_cards(response)
    assert served[:1] == [card_id], served
    verdict = getattr(load_concepts().card(card_id).answer, language)
    assert response.answer.split("\n\n")[0].startswith(verdict[:20]), response.answer[:200]


@pytest.mark.parametrize(
    "question, card_id, language",
    [
        ("We batch about 96 requests on 4x H100 with Llama 3.1 70B. Is speculative decoding worth adding?", "speculative-decoding-high-batch", "en"),
        ("我们4张H100跑Llama 3.1 70B，batch大概96，加投机解码值得吗？", "speculative-decoding-high-batch", "zh"),
    ],
)
def test_a_technique_at_high_batch_is_judged_by_its_card_then_the_setup(offline_advisor, question, card_id, language):
    response = _answer(offline_advisor, question)
    answer = response.answer
    _served_card_leads(response, card_id, language)
    assert "H200" not in answer.split("\n\n")[0]
    assert "estimate_throughput" in [c.name for c in response.tool_calls]


@pytest.mark.parametrize(
    "question, card_id, language",
    [
        ("Whenever a huge prompt comes in, every other stream freezes. Would chunked prefill fix that?", "chunked-prefill", "en"),
        ("一来长文档，其他人的输出全都卡住了，打开分块预填充能解决吗？", "chunked-prefill", "zh"),
        ("推理服务很慢，上投机解码有用吗？", "speculative-decoding", "zh"),
    ],
)
def test_a_symptom_beside_a_technique_is_not_triaged(offline_advisor, question, card_id, language):
    response = _answer(offline_advisor, question)
    answer = response.answer
    _served_card_leads(response, card_id, language)
    assert "known failure" not in answer and "已知故障" not in answer


def test_a_counting_word_does_not_split_a_question():
    assert len(question_parts("PD分离部署值得做吗？我们每天几百万请求，长prompt短输出")) <= 1  # [] or one part: not split
