"""What a request passes before a route runs: a trusted Host header, a bounded body and, for
graph routes, a free place among the requests in flight.

The first two are plain ASGI middleware answering with the API's one error body
(:class:`ErrorBody`); the third is a route dependency (429).

* Trusted hosts: a server on loopback with no key is still reachable from a web page through
  DNS rebinding (the attacker's name resolves to 127.0.0.1, the browser sends its own Host).
  Only loopback names and the hosts ``BIOKG_ALLOWED_HOSTS`` lists are answered; others get 400.
* Body size: a request body over :data:`MAX_BODY_BYTES` is refused with 413 before it is read
  (a ``Content-Length`` too large) or as soon as it grows past the limit (a chunked body).
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Iterable

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from biokg.api.models import ErrorBody

#: The largest request body taken: a 500-character question with a budget is under 3 KiB.
MAX_BODY_BYTES = 16 * 1024
#: Seconds a client told 429 waits before trying again.
RETRY_AFTER_S = 2
#: Names of this machine that DNS rebinding cannot give to another.
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) means this machine only."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to any interface
        return False


class RequestTooLargeError(HTTPException):
    """A request body over the limit (413)."""


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse(ErrorBody(error=message, type=kind).model_dump(), status_code=status)


class TrustedHosts:
    """Answer only requests whose Host is loopback or one of ``allowed`` (``*``: any host)."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self.trusted(Headers(scope=scope)):
            message = (
                "untrusted Host header; this server answers loopback names and the hosts in "
                "BIOKG_ALLOWED_HOSTS"
            )
            await _error(400, message, "UntrustedHostError")(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def trusted(self, headers: Headers) -> bool:
        """Whether the Host header names a host this server answers for."""
        if "*" in self.allowed:
            return True
        host = headers.get("host", "")
        # strip the port: "127.0.0.1:8000", "[::1]:8000", "example.org"
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 or "]:" in host else host
        return bool(name) and (is_loopback(name) or name.lower() in self.allowed)


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _error(413, self.message, RequestTooLargeError.__name__)(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_bytes:  # the route's error handler answers it
                raise RequestTooLargeError(413, self.message)
            return message

        await self.app(scope, counted, send)

    @property
    def message(self) -> str:
        return f"request body larger than {self.max_bytes} bytes; send a shorter question"


class InFlight:
    """Graph requests being answered now, at most ``limit``: past it, 429 at once rather than a
    queue of worker threads that would each time out (an abandoned thread still holds one)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    async def __call__(self) -> AsyncIterator[None]:
        """A route dependency holding one place while the request runs.

        Raises:
            HTTPException: 429 with ``Retry-After``, every place is taken.
        """
        if self.count >= self.limit:
            raise HTTPException(
                429,
                f"the server is answering {self.count} graph requests, its limit "
                "(BIOKG_MAX_IN_FLIGHT); retry in a few seconds",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        self.count += 1
        try:
            yield
        finally:
            self.count -= 1
