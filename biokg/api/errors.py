"""Errors to HTTP responses, in one place: every error body is ``{"error", "type", "fields"}``.

A :class:`BiokgError` gets the status of the nearest class in its MRO found in
:data:`STATUS_BY_ERROR`; a 503 (the engine is down or stalled) carries ``Retry-After``. Request
validation (422) and HTTP errors (401, 404 route, 405, 413, 429) are rewritten to the same body.
Anything else is a bug: logged, and a 500 with the same body that names no internals.
:func:`documented` gives each route's OpenAPI responses in that body, so a client (and the fuzz
test) knows every status a route can answer.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from biokg.api.models import ErrorBody
from biokg.errors import (
    AgentInputError,
    BiokgError,
    BudgetExceededError,
    EntityNotFoundError,
    LLMError,
    RetryableError,
    StoreError,
    StoreUnavailableError,
    UnsafeCypherError,
)

log = logging.getLogger(__name__)

#: Status per error class; a subclass not listed takes its nearest listed ancestor's status.
STATUS_BY_ERROR: dict[type[BiokgError], int] = {
    AgentInputError: 422,
    UnsafeCypherError: 400,
    EntityNotFoundError: 404,
    BudgetExceededError: 504,  # the question's time/query budget or the request timeout ran out
    StoreUnavailableError: 503,
    RetryableError: 503,
    LLMError: 502,
    StoreError: 502,  # the engine refused a query: an upstream failure, not the client's
    BiokgError: 500,
}
#: Seconds a client told 503 waits before it tries again: about what `biokg db start` takes to
#: bring the embedded engine back (a running server then reconnects by itself).
UNAVAILABLE_RETRY_AFTER_S = 5

#: What each error status means, as the OpenAPI document says it.
DESCRIPTIONS: dict[int, str] = {
    400: "Untrusted Host header (see BIOKG_ALLOWED_HOSTS)",
    401: "Missing or wrong API key (X-API-Key)",
    404: "No node has that id",
    413: "Request body too large",
    422: "Invalid request: the fields named are wrong, or a text has nothing to search by",
    429: "Too many graph requests at once; retry after Retry-After seconds",
    500: "Internal error (logged on the server)",
    502: "The graph engine or the LLM refused the work",
    503: "The graph engine is unreachable or stalled right now; retry after Retry-After seconds",
    504: "The request's time or query budget ran out",
}
#: What every route may answer: a bad Host, or a bug.
EVERY_ROUTE = (400, 500)
#: What every graph route may answer besides: the engine failing or the budget running out.
GRAPH = (401, 422, 429, 502, 503, 504)


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for ``statuses``, each with the error body (and its headers)."""
    headers = {
        401: {"WWW-Authenticate": {"schema": {"type": "string"}}},
        429: {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}},
        503: {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}},
    }
    return {
        status: {"model": ErrorBody, "description": DESCRIPTIONS[status]}
        | ({"headers": headers[status]} if status in headers else {})
        for status in sorted(statuses)
    }


def error_status(err: BiokgError) -> int:
    """The HTTP status of ``err`` (see :data:`STATUS_BY_ERROR`)."""
    return next(STATUS_BY_ERROR[c] for c in type(err).__mro__ if c in STATUS_BY_ERROR)


def error_body(err: BiokgError) -> ErrorBody:
    """The response body for ``err``; server-side failures are logged here, once (an engine
    that is down fails every request alike: those get a line each, without the traceback)."""
    status = error_status(err)
    if status == 503:  # the engine is down or stalled: one line a request, not a traceback
        log.warning("%s: %s", type(err).__name__, err)
    elif status >= 500:
        log.error("%s: %s", type(err).__name__, err, exc_info=err)
    return ErrorBody(error=str(err), type=type(err).__name__)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the same body."""

    async def biokg_error(request: Request, err: BiokgError) -> JSONResponse:
        status = error_status(err)
        retry = {"Retry-After": str(UNAVAILABLE_RETRY_AFTER_S)} if status == 503 else None
        return JSONResponse(error_body(err).model_dump(), status_code=status, headers=retry)

    async def invalid_request(request: Request, err: RequestValidationError) -> JSONResponse:
        problems = err.errors()
        # loc starts with where the value was (body, query, path, header); the rest names it
        fields = [".".join(str(p) for p in e["loc"][1:]) or str(e["loc"][0]) for e in problems]
        message = "; ".join(f"{f}: {e['msg']}" for f, e in zip(fields, problems, strict=True))
        body = ErrorBody(error=message, type="RequestValidationError", fields=fields)
        return JSONResponse(body.model_dump(), status_code=422)

    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        body = ErrorBody(error=str(err.detail), type=type(err).__name__)
        return JSONResponse(body.model_dump(), status_code=err.status_code, headers=err.headers)

    async def bug(request: Request, err: Exception) -> JSONResponse:
        log.error("unhandled %s on %s %s", type(err).__name__, request.method, request.url.path)
        body = ErrorBody(error="internal error; the server log has the details", type="Internal")
        return JSONResponse(body.model_dump(), status_code=500)

    app.add_exception_handler(Exception, bug)
    app.add_exception_handler(BiokgError, biokg_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
