"""Every HTTP error the API returns has one bilingual JSON shape, and never a stack trace.

Body: ``{"error": {"code", "en", "zh", "suggestions", "message"}, "request_id"}``. ``message``
repeats the English text because OpenAI client libraries read ``error.message``.
"""

from __future__ import annotations

import logging
import uuid

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from advisor.interfaces.door_text import TEXT, worded_error
from advisor.registry import UnknownToolError
from advisor.validation import bilingual_errors, malformed_json
from knowledge.bilingual import AdvisorError

log = logging.getLogger(__name__)

# Generic wording for statuses raised by the framework itself (unknown path, wrong method...).
STATUS_TEXT = {status: (row["code"], row["en"], row["zh"]) for status, row in TEXT.entry("http_status").items()}


def request_id_of(request: Request) -> str:
    return getattr(request.state, "request_id", None) or uuid.uuid4().hex[:16]


def error_body(error: AdvisorError, request_id: str | None = None) -> dict:
    body = {"error": {**error.to_dict(), "message": error.message("en")}}
    if request_id:
        body["request_id"] = request_id
    return body


def error_response(status: int, error: AdvisorError, request_id: str | None = None, headers: dict | None = None) -> JSONResponse:
    return JSONResponse(error_body(error, request_id), status_code=status, headers=headers)


def status_for(error: AdvisorError) -> int:
    """Unknown tool → 404, arguments that fail validation → 422, any other bad input → 400."""
    if isinstance(error, UnknownToolError):
        return 404
    return 422 if error.code == "invalid_arguments" else 400


async def _advisor_error(request: Request, exc: AdvisorError) -> JSONResponse:
    return error_response(status_for(exc), exc, request_id_of(request))


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    broken = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if broken is not None:
        detail = (broken.get("ctx") or {}).get("error") or broken.get("msg", "")
        return error_response(400, malformed_json(str(detail)), request_id_of(request))
    return error_response(422, bilingual_errors([_user_location(e) for e in errors]), request_id_of(request))


def _user_location(error: dict) -> dict:
    """"body.gpus" reads worse than "gpus": the request-part prefix is FastAPI's, not the user's."""
    loc = tuple(error.get("loc", ()))
    return {**error, "loc": loc[1:] if loc[:1] in {("body",), ("query",), ("path",)} else loc}


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    known = STATUS_TEXT.get(exc.status_code)
    error = AdvisorError(*known) if known else worded_error("http_error", status=exc.status_code)
    return error_response(exc.status_code, error, request_id_of(request), getattr(exc, "headers", None))


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    request_id = request_id_of(request)
    # The trace stays in the server log, tied to the id the user can quote; the body carries neither.
    log.error("Unhandled error for %s %s [request_id=%s]", request.method, request.url.path, request_id, exc_info=exc)
    error = worded_error("internal_error", request_id=request_id)
    return error_response(500, error, request_id)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AdvisorError, _advisor_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
