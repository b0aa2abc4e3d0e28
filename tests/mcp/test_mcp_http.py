"""``biokg mcp --http``: streamable HTTP behind the API key, driven by the ``mcp`` package's own
streamable-HTTP client, on the session graph (a real server process on a free loopback port)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import free_port, port_open, settings_env

KEY = "mcp-http-test-key-0123456789"
SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"  # Viagra; targets PDE5A in ChEMBL's mechanisms
START_S = 180  # the server connects to the graph and builds its agent first (loaded machine)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


@pytest.fixture(scope="module")
def mcp_url(
    agent_graph: GraphStore, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``biokg mcp --http`` with ``BIOKG_API_KEY`` set, serving the session graph."""
    biokg = shutil.which("biokg", path=str(Path(sys.executable).parent))
    assert biokg is not None
    port = free_port()
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"
    env = {**os.environ, **settings_env(settings), "BIOKG_API_KEY": KEY}
    with log.open("wb") as out:
        server = subprocess.Popen(
            [biokg, "mcp", "--http", "--port", str(port)], env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + START_S
        while not port_open(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"biokg mcp --http did not start: {log.read_text()}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "wrong"}], ids=["no-key", "wrong-key"])
def test_a_request_without_the_right_key_is_401_naming_the_header(
    mcp_url: str, headers: dict[str, str]
) -> None:
    response = httpx.post(
        mcp_url,
        json=INITIALIZE,
        headers={**headers, "Accept": "application/json, text/event-stream"},
        timeout=30,
    )
    assert response.status_code == 401
    assert "X-API-Key" in response.json()["error"]


def test_the_sdk_client_with_the_key_calls_the_tools(mcp_url: str) -> None:
    async def run() -> None:
        async with (
            create_mcp_http_client(headers={"X-API-Key": KEY}) as http,
            streamable_http_client(mcp_url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert {"search_entities", "entity_details", "read_cypher"} <= names
            found = await session.call_tool("search_entities", {"text": "Viagra", "limit": 3})
            assert not found.is_error and found.structured_content["result"][0]["id"] == SILDENAFIL
            rows = await session.call_tool(
                "read_cypher",
                {
                    "query": "MATCH (d:Drug {id: $id})-[:TARGETS]->(g:Gene) RETURN g.symbol AS s",
                    "params": {"id": SILDENAFIL},
                },
            )
            assert rows.structured_content["result"] == [{"s": "PDE5A"}]

    anyio.run(run)
