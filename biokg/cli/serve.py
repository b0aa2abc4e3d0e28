"""``biokg serve``: the agent REST API (FastAPI under uvicorn), one process, one graph agent."""

from __future__ import annotations

import typer
import uvicorn

from biokg.api.app import check_bind, create_app
from biokg.cli import handle_errors
from biokg.core.settings import Settings


@handle_errors
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
) -> None:
    """Serve the agent API (docs at /docs); any host but loopback needs BIOKG_API_KEY."""
    settings = Settings.from_env().for_serving()
    check_bind(host, settings)
    uvicorn.run(create_app(settings), host=host, port=port)
