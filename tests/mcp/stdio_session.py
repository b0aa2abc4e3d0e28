"""One MCP session with ``biokg mcp`` over stdio, driven by the ``mcp`` package's own client."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from biokg.core.settings import Settings
from biokg.core.store.embedded import settings_env


def with_session(settings: Settings, work: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Start ``biokg mcp`` against ``settings``' graph, initialise a session, run ``work``."""
    biokg = shutil.which("biokg", path=str(Path(sys.executable).parent))
    assert biokg is not None
    params = StdioServerParameters(command=biokg, args=["mcp"], env=settings_env(settings))

    async def run() -> None:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await work(session)

    anyio.run(run)
