"""The real agent API under uvicorn, in a thread on a free loopback port, for tests that need a
server a separate client reaches over the network (a browser, ``biokg ask`` with
``BIOKG_API_URL``) rather than FastAPI's in-process TestClient."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import uvicorn

from biokg.api.app import create_app
from biokg.core.settings import Settings
from biokg.core.store.embedded import free_port
from biokg.graph_agent.agent import GraphAgent

#: Seconds for uvicorn to start serving on a loaded machine.
START_WAIT_S = 90


def serve(settings: Settings, agent: GraphAgent) -> Iterator[str]:
    """Serve the app over ``agent`` until the generator closes; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings, agent=agent), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_WAIT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on 127.0.0.1:{port}")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
