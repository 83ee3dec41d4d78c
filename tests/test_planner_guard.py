"""A defect in one answer writer reaches the user as a plain sentence in their language, never a trace; and the API
comparison that exposed one (a price per million said, no volume) is answered."""

import pytest

from advisor.offline import planner as planner_module


@pytest.mark.parametrize(("message", "language", "said"), [
    ("how much memory for qwen2.5 7b?", "en", "could not finish"),
    ("qwen2.5 7b 需要多少显存？", "zh", "没能完成"),
])  # fmt: skip
def test_a_failing_writer_gets_a_plain_reply_in_the_users_language(offline_advisor, monkeypatch, caplog, message, language, said):
    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("a writer's defect")

    monkeypatch.setattr(planner_module, "route", broken)
    response = offline_advisor.planner.answer(message, [])
    assert response.language == language and said in response.answer
    assert "Traceback" not in response.answer and "ZeroDivisionError" not in response.answer
    assert any("offline answer failed" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("message", [
    "we pay an API $0.60 per million tokens for Llama 3.1 8B. Would self-hosting on a rented L40S be cheaper?",
    "某个 API 对 Llama 3.1 8B 收 每百万 token 4 元，自己租一张 L40S 部署会更便宜吗？",
])  # fmt: skip
def test_an_api_price_without_a_volume_is_compared_per_million(offline_advisor, message):
    response = offline_advisor.planner.answer(message, [])
    assert "could not finish" not in response.answer and "没能完成" not in response.answer
    assert any(c.name == "api_vs_self_host" or c.name == "estimate_throughput" for c in response.tool_calls), response.answer[:300]


@pytest.mark.parametrize(("first", "follow", "said"), [
    ("How much VRAM to serve Llama 3.1 8B in BF16 with 8k context?", "ok, and if we keep it in BF16?",
     "could not find anything in that follow-up"),  # "is that with the overhead included?" asks what the figure counts: answered
    ("Qwen2.5-7B 用 BF16 推理，8k 上下文要多少显存？", "那还是按 BF16 算的话呢？", "这条追问里没有能改变上面计算的内容"),
])  # fmt: skip
def test_a_follow_up_that_changes_nothing_is_told_so_not_reprinted(offline_advisor, first, follow, said):
    from advisor.contract import ChatTurn

    before = offline_advisor.answer(first, [])
    history = [ChatTurn(role="user", content=first), ChatTurn(role="assistant", content=before.answer, tool_calls=before.tool_calls)]
    after = offline_advisor.answer(follow, history)
    assert said in after.summary and before.summary.split("\n\n")[0] not in after.summary
    again = offline_advisor.answer(first, history)  # the same question asked again is answered again, not refused
    assert said not in again.summary
