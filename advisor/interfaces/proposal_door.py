"""The HTTP door to a proposal, shared by ``POST /api/proposal`` (admin token) and ``/api/embed/proposal`` (embed key)."""

from __future__ import annotations

from fastapi import Response

from advisor.interfaces.api_models import ProposalRequest
from advisor.interfaces.http_errors import error_response
from advisor.proposal.need import NeedMissing
from advisor.proposal.service import make_proposal, render


def proposal_response(planner, request: ProposalRequest, request_id: str) -> Response:
    """The file with its content type; nothing sized yet → 422 with the bilingual error and the request id."""
    try:
        built = make_proposal(planner, request.message, request.history, request.language)
    except NeedMissing as exc:
        return error_response(422, exc, request_id)
    made = render(built, request.format, images="inline")
    return Response(made.content, media_type=made.media_type, headers={"Content-Disposition": f'attachment; filename="{made.filename}"'})
