"""The embedded default engine: ArcadeDB from the ``arcadedb-embedded`` wheel, served over Bolt.

The engine always runs in its own process (``python -m biokg.core.store.embedded``), on loopback
only, and everything else reaches it through the official driver over Bolt:

* owned (:func:`use_server`): the first biokg command that needs the graph and finds no server
  starts one for itself; every command that uses it is counted among its users
  (``<db_dir>/users/<pid>``), and it stops when its owner and every user have exited, so two
  commands started at once share one engine and neither loses it when the other ends;
* shared (:func:`start_background`, ``biokg db start``): a server that outlives the command, so
  several processes (CLI, API, flows) use one database; ``biokg db stop`` ends it.

Either way other processes find the server through ``<db_dir>/server.json``, and two processes
never open the same database files. Why not in-process: the JVM (through JPype) slowed our
Python parsing in the same process 14-fold (HPO parse 11.6 s alone, 165 s beside the JVM), and a
JVM cannot be restarted inside a process.

ArcadeDB writes a ``log/`` folder into the working directory: the server chdirs into the
database folder first, and sends java.util.logging to ``<db_dir>/log/`` instead of stdout.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from biokg.core.settings import Settings
from biokg.errors import (
    FREE_SPACE,
    DiskFullError,
    StoreError,
    StoreUnavailableError,
    low_on_space,
)


@dataclass(frozen=True)
class ServerInfo:
    """Where a running embedded server listens, and which process serves it."""

    pid: int
    bolt_port: int
    http_port: int
    root: str
    #: the engine's limit per command in seconds (0: none; files of older servers lack it)
    command_timeout_s: int = 0

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


def free_port() -> int:
    """A loopback port nobody listens on now (for tests, benchmarks and side-by-side servers)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pid_alive(pid: int) -> bool:
    try:  # an owned server is our child: reap it once it exited, or it lingers as a zombie
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not our child (a shared server)
    return process_alive(pid)


def process_alive(pid: int) -> bool:
    """Whether a process of this id exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_server(settings: Settings) -> ServerInfo | None:
    """The server of this database, if one is up and answering on its Bolt port."""
    state = _state_file(settings)
    try:
        info = ServerInfo(**json.loads(state.read_text()))
    except (FileNotFoundError, json.JSONDecodeError):  # none, or written by an older server
        return None
    if _pid_alive(info.pid) and port_open(info.bolt_port):
        return info
    return None


def start_background(
    settings: Settings, *, owner_pid: int | None = None, timeout_s: float = 120.0
) -> ServerInfo:
    """Start a server process for this database (or return the one already running).

    Args:
        owner_pid: the server exits when this process does (``None``: it runs until stopped).

    Raises:
        StoreError: the server process exited during start-up; its log is named.
        DiskFullError: it exited, and the disk of its database folder is full.
        StoreUnavailableError: it did not listen within ``timeout_s``.
    """
    existing = running_server(settings)
    if existing is not None:
        return existing
    if port_open(settings.bolt_port):
        raise StoreError(
            f"port {settings.bolt_port} on 127.0.0.1 is taken by another program; set "
            "BIOKG_BOLT_PORT (and BIOKG_HTTP_PORT) to free ports, or stop that program"
        )
    settings.db_dir.mkdir(parents=True, exist_ok=True)
    log_path = settings.db_dir / "server.log"
    command = [sys.executable, "-m", "biokg.core.store.embedded"]
    if owner_pid is not None:
        command += ["--owner", str(owner_pid)]
    env = {**os.environ, **settings_env(settings)}
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
            cwd=settings.db_dir,
        )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            if low_on_space(settings.db_dir):  # its log may be empty: the same full disk
                raise DiskFullError.on(
                    settings.db_dir,
                    f"the embedded graph engine could not start (exit code {proc.returncode})",
                    f"{FREE_SPACE}; see {log_path}",
                )
            raise StoreError(
                f"the embedded server exited with code {proc.returncode}; see {log_path}"
            )
        info = running_server(settings)
        if info is not None and info.pid == proc.pid:
            return info
        time.sleep(0.25)
    proc.terminate()
    raise StoreUnavailableError(
        f"the embedded server did not start in {timeout_s:.0f} s; see {log_path}"
    )


def use_server(settings: Settings) -> ServerInfo:
    """The server of this database for this process: the running one, or one started for it
    (owned by this process). This process counts among the server's users until it exits; the
    owner stops it at exit if no other user is left, else the server stops when the last one
    has gone (:func:`_serve`). Starting and joining are serialised by a lock, so two commands
    started at once share one engine instead of both opening the database."""
    with _starting(settings):
        _users(settings).mkdir(parents=True, exist_ok=True)
        (_users(settings) / str(os.getpid())).touch()
        info = running_server(settings)
        owned = info is None
        if info is None:
            info = start_background(settings, owner_pid=os.getpid())
    if owned or settings.db_dir not in _joined:
        _joined.add(settings.db_dir)
        atexit.register(_leave, settings, info.pid if owned else None)
    return info


#: The databases whose servers this process has joined (left once, at exit).
_joined: set[Path] = set()


def _users(settings: Settings) -> Path:
    return settings.db_dir / "users"


@contextlib.contextmanager
def _starting(settings: Settings) -> Iterator[None]:
    """Held while a process starts or joins a server, and while an owned server decides to
    stop: no process joins a server that is stopping."""
    settings.db_dir.mkdir(parents=True, exist_ok=True)
    with open(settings.db_dir / "server.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _live_users(settings: Settings) -> list[int]:
    """The pids registered as users that are still running (the files of the others removed)."""
    alive = []
    for path in _users(settings).glob("*") if _users(settings).is_dir() else ():
        if path.name.isdigit() and process_alive(int(path.name)):
            alive.append(int(path.name))
        else:
            path.unlink(missing_ok=True)
    return alive


def _leave(settings: Settings, owned_pid: int | None) -> None:
    """At exit: no longer a user; the owner stops its server when no other user is left."""
    with _starting(settings):
        (_users(settings) / str(os.getpid())).unlink(missing_ok=True)
        if owned_pid is not None and not _live_users(settings):
            _stop_pid(owned_pid, _state_file(settings))


def stop_background(settings: Settings, *, timeout_s: float = 30.0) -> bool:
    """Stop the server of this database; True when one was running."""
    state = _state_file(settings)
    if not state.exists():
        return False
    info = ServerInfo(**json.loads(state.read_text()))
    return _stop_pid(info.pid, state, timeout_s=timeout_s)


def _stop_pid(pid: int, state: Path, *, timeout_s: float = 30.0) -> bool:
    if not _pid_alive(pid):
        _forget(state, pid)
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    _forget(state, pid)
    return True


def _forget(state: Path, pid: int) -> None:
    """Remove the state file if it still names ``pid``: a server started since keeps its own
    (an owned server died, `biokg db start` started another, then the owner exited)."""
    try:
        if json.loads(state.read_text()).get("pid") == pid:
            state.unlink()
    except (FileNotFoundError, json.JSONDecodeError):
        pass


def write_transactions(settings: Settings) -> int:
    """Write transactions the engine has committed since it started, every client's, from its
    own profiler (HTTP API): how a refresh that should change nothing shows it wrote nothing."""
    import base64
    import urllib.request

    token = base64.b64encode(f"root:{settings.embedded_password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{settings.http_port}/api/v1/server?mode=default",
        headers={"Authorization": f"Basic {token}"},
    )
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())["metrics"]["profiler"]["writeTx"]["count"]


def settings_env(settings: Settings) -> dict[str, str]:
    """The BIOKG_* variables that make a child process see the same embedded database."""
    return {
        "BIOKG_HOME": str(settings.home),
        "BIOKG_BOLT_PORT": str(settings.bolt_port),
        "BIOKG_HTTP_PORT": str(settings.http_port),
        "BIOKG_EMBEDDED_PASSWORD": settings.embedded_password,
        "BIOKG_JVM_HEAP": settings.jvm_heap,
        "BIOKG_COMMAND_TIMEOUT_S": str(settings.command_timeout_s),
        **({"BIOKG_NEO4J_DATABASE": settings.database} if settings.database else {}),
    }


def _write_logging_config(root: Path) -> Path:
    """Send the engine's java.util.logging to <root>/log/, not to stdout."""
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


#: How long a request may wait for a slot of the engine's admission gate (ArcadeDB's
#: ``arcadedb.queryMaxConcurrent``, 2 x cores, at least 4) when commands have no limit.
QUEUE_WAIT_S = 300


def _limit_commands(seconds: int) -> None:
    """Stop any command running longer than ``seconds`` (0: no limit), engine-wide, and let a
    request wait for a slot as long as a command may run.

    ArcadeDB ignores the timeout a Bolt client sends with a query, and a server config entry
    does not reach this setting: only the JVM-wide ``arcadedb.command.timeout`` stops a runaway
    query (the client then gets Neo.ClientError.Transaction.TransactionTimedOut). Its admission
    gate refuses a request that waited 30 s for one of its slots: at release size a refresh's
    write, queued behind four questions' reads, failed so (docs/benchmarks.md, release size).
    """
    import jpype

    config = jpype.JClass("com.arcadedb.GlobalConfiguration")
    config.COMMAND_TIMEOUT.setValue(seconds * 1000)
    config.QUERY_QUEUE_TIMEOUT.setValue((seconds or QUEUE_WAIT_S) * 1000)


def _serve(settings: Settings, owner_pid: int | None) -> None:
    """Run the engine in this process until SIGTERM (or until the owner process is gone)."""
    from arcadedb_embedded.server import ArcadeDBServer

    root = settings.db_dir
    os.chdir(root)  # ArcadeDB writes ./log relative to the working directory
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
            "jvm_args": f"-Djava.util.logging.config.file={_write_logging_config(root)}",
        },
    )
    server.start()
    _limit_commands(settings.command_timeout_s)
    stopping = threading.Event()
    closing = contextlib.ExitStack()  # the start lock, once the server decides to stop
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    try:
        server.create_database(settings.database_name)
        info = ServerInfo(
            os.getpid(),
            settings.bolt_port,
            settings.http_port,
            str(root),
            settings.command_timeout_s,
        )
        state = _state_file(settings)
        partial = state.with_name(f"{state.name}.{os.getpid()}.part")
        partial.write_text(json.dumps(asdict(info)))
        partial.replace(state)  # whole or absent: a client polling it never reads half a file
        while not stopping.wait(0.5):
            if owner_pid is not None and not _pid_alive(owner_pid) and not _live_users(settings):
                # no process may join while the server decides to stop and stops
                closing.enter_context(_starting(settings))
                if not _live_users(settings):
                    break
                closing.close()  # one joined meanwhile: keep serving it
    finally:
        server.stop()
        _forget(_state_file(settings), os.getpid())
        closing.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Serve the embedded biokg graph over Bolt.")
    parser.add_argument("--owner", type=int, default=None, help="exit when this pid exits")
    _serve(Settings.from_env(), parser.parse_args().owner)
