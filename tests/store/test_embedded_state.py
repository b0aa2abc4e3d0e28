"""The embedded server's state file (``<db_dir>/server.json``) when servers die and start again:
how every process finds the running engine, so it must name the engine that runs now."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from biokg.core.store.embedded import ServerInfo, _stop_pid

pytestmark = pytest.mark.unit


def _state(folder: Path, pid: int) -> Path:
    state = folder / "server.json"
    state.write_text(json.dumps(asdict(ServerInfo(pid, 7688, 2481, str(folder)))))
    return state


def _dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def test_stopping_a_dead_owned_server_keeps_the_file_of_the_one_started_since(
    tmp_path: Path,
) -> None:
    # `biokg serve` owned an engine that was killed; `biokg db start` started another, whose
    # file this is (this process stands in for it); serve's exit hook then stops the dead one
    state = _state(tmp_path, os.getpid())
    assert not _stop_pid(_dead_pid(), state)
    assert json.loads(state.read_text())["pid"] == os.getpid()


def test_stopping_a_dead_server_removes_its_own_stale_file(tmp_path: Path) -> None:
    dead = _dead_pid()
    state = _state(tmp_path, dead)
    assert not _stop_pid(dead, state)
    assert not state.exists()
