"""The chat door: "make this a proposal", in either language, answers with the proposal of the conversation so far.

A data-driven command check (``text.yaml`` → commands) in the service layer, not a new intent of the
understanding model: the request carries no slots of its own, and retraining the classifier for one
fixed phrase would move every other intent's scores.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.contract import AdvisorResponse, ChatTurn
from advisor.language import detect_language
from advisor.offline.planner import OfflinePlanner
from advisor.proposal.need import NeedMissing
from advisor.proposal.render_md import render_markdown
from advisor.proposal.service import make_proposal
from advisor.proposal.wording import phrase


def proposal_reply(planner: OfflinePlanner, message: str, history: Sequence[ChatTurn]) -> AdvisorResponse:
    language = detect_language(message)
    try:
        proposal = make_proposal(planner, message, history, language)
    except NeedMissing as exc:
        return AdvisorResponse(answer=exc.message(language), language=language, mode="offline")
    text, _ = render_markdown(proposal, language, images="none")
    return AdvisorResponse(answer=phrase("chat_ready", language) + "\n\n" + text, language=language, mode="offline")
