"""Two commands that need the graph, started at once on a home with no running server, share
one engine: neither fails on the database's lock, and neither loses the engine when the other
exits; the engine stops once both have gone. Each command here is a real process that opens the
store as every biokg command does (``GraphStore.connect``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from own_graph import fresh_graph_settings, release

from biokg.core.store import embedded
from biokg.core.store.embedded import process_alive, settings_env

#: A command: connects and reads, says it is ready, waits for ``go`` in its folder, then reads
#: again (a fresh database: two commands creating its first type at once is the engine's own
#: race, not this one).
COMMAND = """
import sys, time
from pathlib import Path
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
name, folder = sys.argv[1], Path(sys.argv[2])
with GraphStore.connect(Settings.from_env()) as store:
    assert store.read("RETURN $name AS name", {"name": name}) == [{"name": name}]
    (folder / name).write_text("ready")
    while not (folder / ("go-" + name)).exists():
        time.sleep(0.1)
    print(store.read("RETURN $name AS name", {"name": name})[0]["name"])
"""


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_two_commands_started_at_once_share_one_engine_until_both_exit(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    settings = fresh_graph_settings(tmp_path_factory)  # no engine started yet
    env = {**os.environ, **settings_env(settings)}
    commands = {
        name: subprocess.Popen(
            [sys.executable, "-c", COMMAND, name, str(tmp_path)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("1", "2")
    }
    try:
        assert _wait(lambda: all((tmp_path / n).exists() for n in commands), 180), {
            n: p.poll() and p.communicate() for n, p in commands.items()
        }
        engine = embedded.running_server(settings)
        assert engine is not None
        argv = Path(f"/proc/{engine.pid}/cmdline").read_bytes().split(b"\0")
        owner = int(argv[argv.index(b"--owner") + 1])
        [first] = [n for n, p in commands.items() if p.pid == owner]
        [second] = [n for n in commands if n != first]
        # the command that started the engine exits first; the other keeps reading from it
        (tmp_path / f"go-{first}").touch()
        _, first_err = commands[first].communicate(timeout=60)
        assert commands[first].returncode == 0, first_err
        assert embedded.running_server(settings) == engine  # still serving the other
        (tmp_path / f"go-{second}").touch()
        second_out, second_err = commands[second].communicate(timeout=60)
        assert commands[second].returncode == 0, second_err
        assert second_out.strip() == second
        # both gone: the engine stops by itself
        assert _wait(lambda: not process_alive(engine.pid), 60)
        assert embedded.running_server(settings) is None
    finally:
        for process in commands.values():
            process.kill()
        release(settings)
