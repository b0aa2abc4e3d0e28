"""``biokg db start|stop|status``: the embedded engine as a shared local background server."""

from __future__ import annotations

import time

import typer

from biokg.cli import console, handle_errors
from biokg.core.embedding.search import warm_indexes
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.errors import ConfigError

app = typer.Typer(
    help="Run the embedded graph engine as a local background server.", no_args_is_help=True
)


def _embedded_settings() -> Settings:
    settings = Settings.from_env()
    if not settings.embedded:
        raise ConfigError("BIOKG_NEO4J_URI is set: the database is that Neo4j server, not embedded")
    return settings


@app.command("start")
@handle_errors
def start() -> None:
    """Start the embedded engine in the background so several processes can share it."""
    settings = _embedded_settings()
    info = embedded.start_background(settings)
    console.print(f"embedded graph serving {info.bolt_uri} (pid {info.pid}, data in {info.root})")
    started = time.perf_counter()
    with GraphStore.connect(settings) as store:
        warmed = warm_indexes(store)
    console.print(f"{warmed} search indexes warmed in {time.perf_counter() - started:.1f} s")


@app.command("stop")
@handle_errors
def stop() -> None:
    """Stop the background server."""
    stopped = embedded.stop_background(_embedded_settings())
    console.print("stopped" if stopped else "no background server was running")


@app.command("status")
@handle_errors
def status() -> None:
    """Say whether the background server runs, and where."""
    info = embedded.running_server(_embedded_settings())
    if info is None:
        console.print("not running (each command starts its own server when it needs the graph)")
    else:
        console.print(f"running: {info.bolt_uri}, pid {info.pid}, data in {info.root}")
