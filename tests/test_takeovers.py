"""The take-over tables of advisor/offline/routes.yaml (``take_overs:``), run by advisor/offline/takeovers.py.

Every table is run by exactly one ``TakeOvers`` and every name it uses resolves (a misspelt name fails at import with
a clear error); the chain's semantics (order, a writer that declines, a lead); and, for each row moved out of code
(#34: the router's wrappers around a task's answer), a real message in both languages that the same writer still answers.
"""

from __future__ import annotations

import types

import pytest
from pydantic import ValidationError

from advisor.offline import router, takeovers
from advisor.offline.takeovers import TakeOver, TakeOvers, gathered


def test_every_table_is_run_by_one_takeovers():
    tables = set(takeovers.table())
    assert tables <= set(takeovers.claimed()), f"tables nobody runs: {tables - set(takeovers.claimed())}"
    assert set(router.table().tasks) <= set(takeovers.claimed())  # the router runs a table for every task


def test_task_answers_are_each_tasks_own_answer():
    """The router's task handlers are the tasks' own answers: no take-over is composed in code any more."""
    from advisor.offline.tasks.memory import sizing
    from advisor.offline.tasks.tco import costs

    assert router.TASK_ANSWERS["memory"] is sizing.memory and router.TASK_ANSWERS["max_fit"] is sizing.memory
    assert router.TASK_ANSWERS["tco"] is costs.rent_or_buy


@pytest.fixture
def probe_table(monkeypatch):
    """A take-over table named ``probe`` with the given rows, in place of routes.yaml's."""

    def with_rows(*rows: dict) -> None:
        monkeypatch.setattr(takeovers, "table", lambda: {"probe": [TakeOver.model_validate(row) for row in rows]})

    yield with_rows
    takeovers._CLAIMED.pop("probe", None)


def test_a_wrong_name_fails_with_a_clear_error(probe_table):
    probe_table({"name": "misspelt", "when": ["asks_rent_pirce", "not owns_card"], "writer": "rent_prices"},
                {"name": "no_writer", "writer": "rent_price"})
    with pytest.raises(LookupError) as raised:
        TakeOvers("probe", conditions={"owns_cards": bool}, writers={"rent_prices": str})
    message = str(raised.value)
    assert "routes.yaml take_overs.probe" in message
    for named in ("misspelt: condition asks_rent_pirce", "misspelt: condition owns_card", "no_writer: writer rent_price"):
        assert named in message
    assert "probe" not in takeovers.claimed()  # a table that failed its check runs nowhere


def test_an_ask_field_that_is_no_yes_or_no_is_not_a_condition(probe_table):
    probe_table({"name": "not_a_flag", "when": ["capability"], "writer": "w"})  # Ask.capability is a value, not a yes/no
    with pytest.raises(LookupError, match="not_a_flag: condition capability"):
        TakeOvers("probe", conditions={}, writers={"w": str})


def test_a_misspelt_row_field_fails():
    with pytest.raises(ValidationError):
        TakeOver.model_validate({"name": "typo", "wen": ["x"], "writer": "w"})


def test_one_word_with_two_meanings_fails():
    assert gathered({"a": str}, {"a": str, "b": int}) == {"a": str, "b": int}
    with pytest.raises(LookupError, match="'a' is given two meanings"):
        gathered({"a": str}, {"a": int})


def test_a_table_is_run_by_one_takeovers_only(probe_table):
    probe_table({"name": "one", "writer": "w"})
    TakeOvers("probe", conditions={}, writers={"w": str})
    with pytest.raises(LookupError, match="run by two tables"):
        TakeOvers("probe", conditions={}, writers={"w": str})


def test_given_writers_are_named_and_passed(probe_table):
    """A writer the running code passes in (the recommendation, for the memory answer) is named at construction and
    must be given at each run."""
    probe_table({"name": "counted", "writer": "recommendation"})
    table = TakeOvers("probe", conditions={}, writers={}, given=("recommendation",))
    turn = types.SimpleNamespace(ask=None)
    assert table.answer(turn, recommendation=lambda turn: "counted") == "counted"
    with pytest.raises(TypeError, match="take_overs.probe is run with the writers"):
        table.answer(turn)


def test_order_decline_and_lead(probe_table):
    """Rows in order; a writer returning None declines; a lead goes before whatever answers, an empty one is no lead."""
    said: list[str] = []
    probe_table({"name": "lead", "when": ["slow"], "writer": "lead", "leads": True},
                {"name": "declines", "writer": "nothing"},
                {"name": "guarded", "when": ["not slow", "priced"], "writer": "price"},
                {"name": "last", "when": ["priced"], "writer": "card"})
    flags = {"slow": lambda turn: turn.slow, "priced": lambda turn: turn.priced}
    writers = {"lead": lambda turn: said.append("lead") or turn.lead, "nothing": lambda turn: None,
               "price": lambda turn: "price", "card": lambda turn: "card"}
    table = TakeOvers("probe", flags, writers)
    own = table.before(lambda turn: said.append("own") or "own")

    def turn(**values):
        return types.SimpleNamespace(ask=None, **{"slow": False, "priced": False, "lead": "squeeze", **values})

    assert own(turn()) == "own"
    assert own(turn(priced=True)) == "price"
    assert own(turn(slow=True, priced=True)) == "squeeze\n\ncard"  # "not slow" stops the guarded row
    assert own(turn(slow=True)) == "squeeze\n\nown"
    said.clear()
    assert own(turn(slow=True, lead="")) == "own" and said == ["lead", "own"]  # the lead is written first, then the answer
    assert table.answer(turn()) is None


# ---- each row moved out of code (#34): a real message per language still answered by the same writer ----
# (table, writer, language, message)
MOVED = [
    ("recommend", "serving_estimate", "en", "How many H100s do we need to serve Llama 3.1 70B to 200 concurrent users with TTFT under 500 ms?"),
    ("recommend", "serving_estimate", "zh", "用H100部署Llama 3.1 70B，200个并发用户，首字延迟500毫秒以内，需要几张？"),
    ("memory", "capability_verdict", "en", "Can an RTX 4090 run FP4?"),
    ("memory", "capability_verdict", "zh", "4090能跑FP4吗？"),
    ("memory", "serving_estimate", "en", "How much VRAM does Llama 3.1 70B need on H100s for 100 concurrent users, how many cards?"),
    ("memory", "serving_estimate", "zh", "Llama 3.1 70B在H100上服务100个并发用户要多少显存，要几张卡？"),
    ("max_fit", "capability_verdict", "en", "What is the largest model two RTX 3090s can run, and do they support NVLink?"),
    ("max_fit", "capability_verdict", "zh", "两张3090最大能跑多大的模型，支持NVLink吗？"),
    ("max_fit", "runnable_models", "en", "What models can I run on two RTX 3090s?"),
    ("max_fit", "runnable_models", "zh", "两张3090能跑哪些模型？"),
    ("specs", "capability_verdict", "en", "Does the L40S support FP8?"),
    ("specs", "capability_verdict", "zh", "L40S支持FP8吗？"),
    ("troubleshoot", "kv_squeeze", "en", "Our vLLM server running Llama 3 70B on 2 A100 80GB gets very slow when 64 users connect with 8k prompts"),
    ("troubleshoot", "kv_squeeze", "zh", "我们用vLLM在2张A100 80G上跑Llama 3 70B，64个用户8k上下文时变得很慢，帮忙排查一下"),
    ("serving_speed", "token_price", "en", "How fast does Llama 3 8B serve on an L40S, and per million tokens what does it cost?"),
    ("serving_speed", "token_price", "zh", "L40S跑Llama 3 8B每秒多少token，每百万token多少钱？"),
    ("tco", "token_price", "en", "What does a million tokens cost serving Llama 3 8B on an L40S?"),
    ("tco", "token_price", "zh", "用L40S跑Llama 3 8B，每百万token成本是多少？"),
    ("tco", "rent_prices", "en", "Is $4.50 an hour a fair price to rent an H100?"),
    ("tco", "rent_prices", "zh", "H100每小时租金4.5美元合理吗？"),
    # the writers' own tables (fit.memory, recommend.recommend), moved out of their if-chains
    ("memory_estimate", "ask_for_model", "en", "How much VRAM do I need?"),
    ("memory_estimate", "ask_for_model", "zh", "跑大模型要多少显存？"),
    ("memory_estimate", "methods", "en", "Full fine-tune, LoRA or QLoRA for Llama 3 8B: how much memory each?"),
    ("memory_estimate", "methods", "zh", "Llama 3 8B全参微调、LoRA和QLoRA各需要多少显存？"),
    ("recommendation", "ask_for_model", "en", "Which GPUs should I buy?"),
    ("recommendation", "ask_for_model", "zh", "买什么显卡好？"),
    ("recommendation", "methods", "en", "How many GPUs for full fine-tuning and for QLoRA of Llama 3 70B?"),
    ("recommendation", "methods", "zh", "Llama 3 70B全参微调和QLoRA分别需要几张卡？"),
    # rows no message reached in test_router_messages, test_takeovers or test_recorded_answers (the rows answered were
    # recorded over those files): a real message for each, in both languages
    ("tco", "rentals", "en", "Renting 8 H100 at $2.5/h or 8 A100 at $1.6/h for a year, which is cheaper?"),
    ("tco", "rentals", "zh", "租8张H100每卡时2.5美元，还是8张A100每卡时1.6美元，一年哪个便宜？"),
    ("tco", "price_unconverted", "en", "Rent or buy: an 8x H100 server is quoted at £90k, over 3 years?"),
    ("tco", "price_unconverted", "zh", "8卡H100服务器报价9万英镑，三年内租还是买划算？"),
    ("memory_estimate", "sized_comparison", "en", "Can the H20 beat the H100 on a 72B model?"),
    ("memory_estimate", "sized_comparison", "zh", "H20能在72B模型上胜过H100吗？"),
    ("spec_sheet", "filtered_list", "en", "Which cards have 48 GB of memory or more?"),
    ("spec_sheet", "filtered_list", "zh", "哪些GPU有48GB或更多显存？"),
]


@pytest.fixture
def writers_answering(monkeypatch):
    """(table, writer) of every take-over writer that answered (wrote a text), innermost first."""
    answered: list[tuple[str, str]] = []
    for key, table in takeovers.claimed().items():
        def spied(name, writer, key=key):
            def spy(turn):
                written = writer(turn)
                if written:
                    answered.append((key, name))
                return written
            return spy

        monkeypatch.setattr(table, "writers", {name: spied(name, writer) for name, writer in table.writers.items()})
    return answered


@pytest.mark.parametrize(("table", "writer", "language", "message"), MOVED, ids=[f"{t}.{w}-{lang}" for t, w, lang, _ in MOVED])
def test_a_moved_row_still_answers(offline_advisor, writers_answering, table, writer, language, message):
    response = offline_advisor.answer(message, [])
    assert response.language == language
    assert (table, writer) in writers_answering, f"{message!r} was answered by {writers_answering}"


def test_every_moved_table_has_a_message_per_language():
    covered = {(table, language) for table, _, language, _ in MOVED}
    for table in ("recommend", "memory", "max_fit", "specs", "troubleshoot", "serving_speed", "tco", "memory_estimate", "recommendation"):
        assert {(table, "en"), (table, "zh")} <= covered, table
