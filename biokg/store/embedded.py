"""The embedded default engine: ArcadeDB from the ``arcadedb-embedded`` wheel, served over Bolt.

Two ways to run it, both on loopback only:

* in-process (:func:`start_in_process`): the first biokg command that needs the graph starts the
  JVM inside its own Python process and stops it on exit. One JVM per process, and it cannot be
  restarted, so the server is a process-wide singleton.
* background (:func:`start_background`, ``biokg db start``): a detached ``python -m
  biokg.store.embedded`` process serves the database so several processes (CLI, API, flows) can
  share it; they find it through ``<db_dir>/server.json``. Two processes never open the same files.

ArcadeDB writes a ``log/`` folder into the working directory; we chdir into the database folder
while the JVM starts so it lands there instead of in the user's project.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from biokg.errors import StoreError, StoreUnavailableError
from biokg.settings import Settings

_SERVER_LOCK = threading.Lock()
_IN_PROCESS: dict[str, object] = {}


@dataclass(frozen=True)
class ServerInfo:
    """Where a running embedded server listens, and which process owns it."""

    pid: int
    bolt_port: int
    http_port: int
    root: str

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


def _state_file(settings: Settings) -> Path:
    return settings.db_dir / "server.json"


def port_open(port: int, timeout: float = 0.3) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_server(settings: Settings) -> ServerInfo | None:
    """The background or in-process server for this database, if one is up."""
    if "info" in _IN_PROCESS:
        return _IN_PROCESS["info"]  # type: ignore[return-value]
    state = _state_file(settings)
    if not state.exists():
        return None
    info = ServerInfo(**json.loads(state.read_text()))
    if _pid_alive(info.pid) and port_open(info.bolt_port):
        return info
    return None


def _serve(settings: Settings) -> ServerInfo:
    """Start the JVM server in this process (blocking only until Bolt listens)."""
    from arcadedb_embedded.server import ArcadeDBServer

    if port_open(settings.bolt_port):
        raise StoreError(
            f"port {settings.bolt_port} on 127.0.0.1 is taken by another program; set "
            "BIOKG_BOLT_PORT (and BIOKG_HTTP_PORT) to free ports, or stop that program"
        )
    root = settings.db_dir
    root.mkdir(parents=True, exist_ok=True)
    logging_config = _write_logging_config(root)
    previous = Path.cwd()
    os.chdir(root)  # ArcadeDB writes ./log relative to the working directory
    try:
        server = ArcadeDBServer(
            str(root),
            settings.embedded_password,
            {
                "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
                "bolt_port": settings.bolt_port,
                "http_port": settings.http_port,
                "host": "127.0.0.1",
            },
            jvm_kwargs={
                "heap_size": settings.jvm_heap,
                "jvm_args": f"-Djava.util.logging.config.file={logging_config}",
            },
        )
        server.start()
        server.create_database(settings.database_name)
    except Exception as err:
        raise StoreError(f"could not start the embedded ArcadeDB engine in {root}: {err}") from err
    finally:
        os.chdir(previous)
    info = ServerInfo(os.getpid(), settings.bolt_port, settings.http_port, str(root))
    _IN_PROCESS.update(server=server, info=info)
    # The engine's threads are not daemons: without a stop the interpreter never exits.
    atexit.register(stop_in_process)
    return info


def _write_logging_config(root: Path) -> Path:
    """Send the engine's java.util.logging to <root>/log/, not to our stdout (the CLI's output)."""
    (root / "log").mkdir(exist_ok=True)
    path = root / "logging.properties"
    path.write_text(
        "handlers = java.util.logging.FileHandler\n"
        ".level = WARNING\n"
        f"java.util.logging.FileHandler.pattern = {root / 'log' / 'engine.%g.log'}\n"
        "java.util.logging.FileHandler.limit = 10000000\n"
        "java.util.logging.FileHandler.count = 2\n"
        "java.util.logging.FileHandler.formatter = java.util.logging.SimpleFormatter\n"
    )
    return path


def start_in_process(settings: Settings) -> ServerInfo:
    """Start (once per process) the embedded server and return where it listens.

    Raises:
        StoreError: the ports are taken or the engine failed to start.
    """
    with _SERVER_LOCK:
        if "info" in _IN_PROCESS:
            return _IN_PROCESS["info"]  # type: ignore[return-value]
        return _serve(settings)


def stop_in_process() -> None:
    """Stop the in-process server, if this process started one (the JVM itself stays)."""
    with _SERVER_LOCK:
        server = _IN_PROCESS.pop("server", None)
        _IN_PROCESS.pop("info", None)
        if server is not None:
            server.stop()


def start_background(settings: Settings, *, timeout_s: float = 90.0) -> ServerInfo:
    """Start a detached server process for this database (``biokg db start``).

    Raises:
        StoreUnavailableError: it did not listen within ``timeout_s``; the log path is named.
    """
    existing = running_server(settings)
    if existing is not None:
        return existing
    settings.db_dir.mkdir(parents=True, exist_ok=True)
    log_path = settings.db_dir / "server.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
            [sys.executable, "-m", "biokg.store.embedded"],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=os.environ.copy(),
        )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise StoreError(f"the embedded server exited with code {proc.returncode}; see {log_path}")
        info = running_server(settings)
        if info is not None:
            return info
        time.sleep(0.5)
    proc.terminate()
    raise StoreUnavailableError(f"the embedded server did not start in {timeout_s:.0f} s; see {log_path}")


def stop_background(settings: Settings, *, timeout_s: float = 30.0) -> bool:
    """Stop the background server; True when one was running."""
    state = _state_file(settings)
    if not state.exists():
        return False
    info = ServerInfo(**json.loads(state.read_text()))
    if not _pid_alive(info.pid):
        state.unlink(missing_ok=True)
        return False
    os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(info.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    state.unlink(missing_ok=True)
    return True


def _serve_forever() -> None:
    """Entry point of the background process: serve until SIGTERM, then stop cleanly."""
    settings = Settings.from_env()
    info = _serve(settings)
    _state_file(settings).write_text(json.dumps(info.__dict__))
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    try:
        while not stopping.wait(1.0):
            pass
    finally:
        with contextlib.suppress(Exception):
            stop_in_process()
        _state_file(settings).unlink(missing_ok=True)


if __name__ == "__main__":
    _serve_forever()
