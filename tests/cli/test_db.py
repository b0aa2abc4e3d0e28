"""``biokg db start|status|stop``: a shared background server that other commands use."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.core.store.embedded import free_port

runner = CliRunner()


def test_background_server_is_shared_then_stopped(tmp_path: Path) -> None:
    env = {
        "BIOKG_HOME": str(tmp_path / "home"),
        "BIOKG_BOLT_PORT": str(free_port()),
        "BIOKG_HTTP_PORT": str(free_port()),
    }
    settings = Settings.from_env(env)
    started = runner.invoke(app, ["db", "start"], env=env)
    try:
        assert started.exit_code == 0, started.output
        info = embedded.running_server(settings)
        assert info is not None and f"pid {info.pid}" in started.output
        with GraphStore.connect(settings) as store:  # finds the shared server, starts none
            store.write("CREATE (:Entity:Gene {id: 'NCBIGene:1', name: 'A1BG'})")
            assert store.read("MATCH (n:Gene) RETURN n.name AS name") == [{"name": "A1BG"}]
        assert embedded.running_server(settings) == info
        status = runner.invoke(app, ["db", "status"], env=env)
        assert f"pid {info.pid}" in status.output
    finally:
        stopped = runner.invoke(app, ["db", "stop"], env=env)
    assert stopped.exit_code == 0 and "stopped" in stopped.output
    assert embedded.running_server(settings) is None
    assert "not running" in runner.invoke(app, ["db", "status"], env=env).output
