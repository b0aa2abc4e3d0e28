"""``biokg mcp``: the MCP server over stdio (default) or streamable HTTP behind the API key."""

from __future__ import annotations

import typer

from biokg.cli import err_console, handle_errors
from biokg.core.settings import Settings
from biokg.core.store import GraphStore


@handle_errors
def mcp_command(
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at /mcp, not stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (--http)."),
    port: int = typer.Option(8001, "--port", help="Port to listen on (--http)."),
) -> None:
    """Serve the graph's tools to MCP clients: search, entity, neighbourhood, ask, schema and
    read-only Cypher; any host but loopback needs BIOKG_API_KEY (sent as X-API-Key)."""
    from biokg.api.app import check_bind
    from biokg.graph_agent.agent import GraphAgent
    from biokg.mcp_server import RequireApiKey, create_server

    settings = Settings.from_env().for_serving()
    if http:
        check_bind(host, settings)
    with GraphStore.connect(settings) as store:
        server = create_server(GraphAgent.connect(store, settings))
        if not http:
            server.run("stdio")
            return
        import uvicorn

        err_console.print(f"MCP over streamable HTTP at http://{host}:{port}/mcp")
        app = RequireApiKey(server.streamable_http_app(host=host), settings.api_key)
        uvicorn.run(app, host=host, port=port)
