"""The FastAPI app: routes, the API-key check, error mapping, and a lifespan that owns the graph.

Authentication: with ``BIOKG_API_KEY`` set, every route but ``/health``, the docs and the
explorer page (``/``, ``/static``, ``/explorer/config``, ``/explorer/links``: no graph data)
requires the key in the ``X-API-Key`` header (compared in constant time), else 401. With no key set,
requests are not authenticated, and :func:`check_bind` keeps ``biokg serve`` on loopback.

Every request first passes :mod:`biokg.api.guards`: a Host the server answers for (loopback and
``BIOKG_ALLOWED_HOSTS``, else 400), a body of at most 16 KiB (else 413), and for graph routes a
free place among ``BIOKG_MAX_IN_FLIGHT`` requests (else 429).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import anyio.to_thread
from fastapi import Depends, FastAPI, HTTPException, Request, Security
from fastapi.security import APIKeyHeader
from fastapi.staticfiles import StaticFiles

from biokg import __version__
from biokg.api.diagnosis import router as diagnosis
from biokg.api.errors import EVERY_ROUTE, GRAPH, documented, install_error_handlers
from biokg.api.explorer import explorer
from biokg.api.guards import BodyLimit, InFlight, TrustedHosts, is_loopback
from biokg.api.routes import protected, public
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import ConfigError
from biokg.graph_agent.agent import GraphAgent

API_KEY_HEADER = "X-API-Key"
_api_key_header = APIKeyHeader(name=API_KEY_HEADER, auto_error=False)


def create_app(settings: Settings, *, agent: GraphAgent | None = None) -> FastAPI:
    """The API over ``agent``, or over an agent its lifespan connects from ``settings``.

    A given agent (tests, embedding in another app) stays the caller's: it is not closed.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if agent is not None:
            app.state.agent = agent
            await anyio.to_thread.run_sync(agent.warm)
            yield
            return
        store = await anyio.to_thread.run_sync(GraphStore.connect, settings)
        try:
            app.state.agent = await anyio.to_thread.run_sync(GraphAgent.connect, store, settings)
            await anyio.to_thread.run_sync(app.state.agent.warm)
            yield
        finally:
            store.close()

    app = FastAPI(
        title="biokg agent API",
        version=__version__,
        description=(
            "Questions answered from the biomedical knowledge graph, every claim citing the "
            "nodes, edges and source records it rests on. Send the key in the "
            f"`{API_KEY_HEADER}` header when the server has one (`BIOKG_API_KEY`)."
        ),
        lifespan=lifespan,
        responses=documented(*EVERY_ROUTE),
    )
    app.state.api_key = settings.api_key
    app.state.in_flight = InFlight(settings.max_in_flight)
    install_error_handlers(app)
    app.add_middleware(BodyLimit)
    app.add_middleware(TrustedHosts, allowed=settings.allowed_hosts)  # outermost: runs first
    app.include_router(public)
    app.include_router(explorer)
    app.mount("/static", StaticFiles(packages=[("biokg.api", "static")]), name="static")
    for router in (protected, diagnosis):
        app.include_router(
            router,
            dependencies=[Security(require_api_key), Depends(app.state.in_flight)],
            responses=documented(*GRAPH),
        )
    return app


def require_api_key(
    request: Request, key: Annotated[str | None, Security(_api_key_header)]
) -> None:
    """Let the request through when the server has no key or ``key`` matches it.

    Raises:
        HTTPException: 401, the key is missing or wrong.
    """
    expected: str | None = request.app.state.api_key
    if expected is None:
        return
    if key is None or not secrets.compare_digest(key.encode(), expected.encode()):
        raise HTTPException(
            status_code=401,
            detail=f"missing or wrong API key; send it in the {API_KEY_HEADER} header",
            headers={"WWW-Authenticate": "ApiKey"},
        )


def check_bind(host: str, settings: Settings) -> None:
    """Refuse to serve beyond this machine without an API key.

    Raises:
        ConfigError: ``host`` is not a loopback address and ``BIOKG_API_KEY`` is unset.
    """
    if settings.api_key is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to listen on {host} without an API key: set BIOKG_API_KEY "
            "(e.g. `export BIOKG_API_KEY=$(openssl rand -hex 32)`) or serve on 127.0.0.1"
        )
