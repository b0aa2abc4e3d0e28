"""A full disk during a build and during a refresh, on the real engine (issue 56, decision 0030
"A full disk").

The graph's home is a small tmpfs of its own, filled by a file of zeros while a real ``biokg
build`` (then ``biokg refresh``) of openFDA's offline sample runs: the command must exit 1 with
one line saying that there is no space left on the engine's database folder, no stack trace;
the graph must stay as the last completed load left it; and once space is freed, the same
command must give the graph a clean build gives (every node's and edge's properties compared,
:func:`graph_state.graph_dump`). Then biokg's own writes: a load's snapshot on a full folder of
its own, and a command started on a full home.

Mounting needs root, as this machine and CI run; elsewhere the tests fail saying so (the project
skips nothing).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from graph_state import assert_same_graph, graph_dump, snapshot
from offline_read import shared_sample
from own_graph import engine_post
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import free_port, settings_env, start_background, stop_background
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest.build import build as build_graph
from biokg.ingest.sources.openfda import SAMPLE_FOLDER

#: Six CLI commands (two in processes of their own), two engine starts, three builds.
pytestmark = pytest.mark.slow

#: The home's filesystem: an empty database with schema/'s types and indexes takes ~31 MB (its
#: transaction log ~16 MB of it), openFDA's sample ~20 MB more; two databases are built here.
HOME_SIZE = "160m"
#: Rows per write batch of the builds here: openFDA's sample in ~20 node batches, so the disk
#: fills part-way through its load.
BATCH = "50"
CURRENT = "MATCH (v:SourceVersion {source: $s, current: true}) RETURN v.load_id AS load_id"
OPENFDA = "infores:openfda"
runner = CliRunner()


@contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` for the block, then unmounted."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.fail(
            f"cannot mount a {size} tmpfs at {folder} ({mounted.stderr.strip()}): the "
            "full-disk tests fill a filesystem of their own and must run as root, as CI does"
        )
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)]).returncode != 0:
            subprocess.run(["umount", "--lazy", str(folder)], check=True)  # still held open


def fill(folder: Path) -> Path:
    """Take every free byte of ``folder``'s filesystem with a file of zeros; returns it."""
    filler = folder / "filler"
    block = b"\0" * (1 << 20)
    out = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (1 << 20, 1 << 16, 1 << 12, 1):  # down to the last bytes of a page
            try:
                while os.write(out, block[:size]):
                    pass
            except OSError:
                pass
    finally:
        os.close(out)
    assert os.statvfs(folder).f_bavail == 0, f"{folder} still has room"
    return filler


@dataclasses.dataclass(frozen=True)
class Home:
    """A graph home on a tmpfs of its own, with the commands run on it."""

    settings: Settings
    children: list[subprocess.Popen] = dataclasses.field(default_factory=list)

    def fill(self) -> None:
        fill(self.settings.home)

    def free(self) -> None:
        (self.settings.home / "filler").unlink()

    def biokg(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        """``biokg ARGS`` in its own process on this home, stdout and stderr as one text."""
        child = subprocess.Popen(
            [Path(sys.executable).with_name("biokg"), *args],
            env={
                **os.environ,
                **settings_env(self.settings),
                "BIOKG_BATCH_SIZE": BATCH,
                **(env or {}),
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.children.append(child)
        return child


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    """The home on its tmpfs; what runs on it stopped, and the tmpfs unmounted, afterwards."""
    with tmpfs(tmp_path_factory.mktemp("full-home"), HOME_SIZE) as folder:
        settings = Settings.from_env(
            {
                "BIOKG_HOME": str(folder),
                "BIOKG_BOLT_PORT": str(free_port()),
                "BIOKG_HTTP_PORT": str(free_port()),
            }
        )
        home = Home(settings)
        try:
            yield home
        finally:
            for child in home.children:  # a test that failed before its command ended
                if child.poll() is None:
                    child.kill()
                    child.wait()
            stop_background(settings)


def test_a_build_on_a_disk_that_fills_part_way_fails_naming_it_and_a_rerun_converges(
    home: Home,
) -> None:
    settings = home.settings
    build = ["build", "--sources", "openfda", "--sample", "--no-embed"]
    child = home.biokg(*build)
    # the engine: started here or by the build, whichever comes first; the other joins it
    with GraphStore.connect(settings) as store:
        deadline = time.monotonic() + 120
        while child.poll() is None and time.monotonic() < deadline:
            if store.read("MATCH (n:Entity) RETURN count(n) AS n")[0]["n"] > 0:
                break
            time.sleep(0.02)
        assert child.poll() is None, "the build ended before the disk filled: nothing was tested"
        home.fill()
        output, _ = child.communicate(timeout=120)
        assert child.returncode == 1, output
        message = " ".join(output.split())
        assert f"error: no space left on {settings.db_dir} (" in message, output
        assert "the graph engine could not write its database" in message
        assert "run the command again" in message
        assert "Traceback" not in output and "Exception" not in output, output
        # part-way: some of its nodes are in, and its load never became current
        assert store.read("MATCH (n:Entity) RETURN count(n) AS n")[0]["n"] > 0
        assert store.read(CURRENT, {"s": OPENFDA}) == []
    # the engine stops while the disk is still full, as a command's own engine does at its exit
    stop_background(settings)
    home.free()
    start_background(settings, owner_pid=os.getpid())  # opens what the full disk interrupted
    again = runner.invoke(app, build, env=settings_env(settings))
    assert again.exit_code == 0, again.output
    with GraphStore.connect(settings) as store:
        rebuilt = graph_dump(store)
    # a clean build's graph, in a database of its own in the same engine
    engine_post(settings, "server", {"command": "create database clean"})
    clean = dataclasses.replace(settings, database="clean")
    with GraphStore.connect(clean) as store:
        build_graph(store, clean, ("openfda",), sample=True)
        assert_same_graph(graph_dump(store), rebuilt)


def test_a_refresh_on_a_full_disk_fails_naming_it_and_leaves_the_graph_as_it_was(
    home: Home, tmp_path: Path
) -> None:
    """After the build above (same module): a refresh with a change, the disk filled once it
    holds the graph's write lock; then, space freed, the same refresh writes the change."""
    settings = home.settings
    changed = tmp_path / "openfda"  # the sample, one label fewer
    changed.mkdir()
    for path in shared_sample("openfda")[SAMPLE_FOLDER].iterdir():
        if path.name != "spl_cough.xml":
            (changed / path.name).write_bytes(path.read_bytes())
    refresh = ["refresh", "--sources", "openfda", "--offline", "--sample", "--no-embed"]
    lock = settings.cache_dir / "lexicon" / "build.lock"
    with GraphStore.connect(settings) as store:
        before, counts = graph_dump(store), snapshot(store)
        load = store.read(CURRENT, {"s": OPENFDA})
        child = home.biokg(*refresh, env={"BIOKG_OPENFDA_DIR": str(changed)})
        deadline = time.monotonic() + 60
        while f'"pid": {child.pid}' not in (lock.read_text() if lock.exists() else ""):
            assert child.poll() is None and time.monotonic() < deadline, "it never locked"
            time.sleep(0.01)
        home.fill()
        output, _ = child.communicate(timeout=120)
        assert child.returncode == 1, output
        message = " ".join(output.split())
        assert "openfda: failed" in message, output
        assert f"no space left on {settings.db_dir} (" in message, output
        assert "Traceback" not in output and "Exception" not in output, output
        assert snapshot(store) == counts
        assert store.read(CURRENT, {"s": OPENFDA}) == load
        assert_same_graph(before, graph_dump(store))
        home.free()
        env = {**settings_env(settings), "BIOKG_OPENFDA_DIR": str(changed)}
        again = runner.invoke(app, refresh, env=env)
        assert again.exit_code == 0, again.output
        assert "openfda: updated" in again.output, again.output
        assert store.read(CURRENT, {"s": OPENFDA}) != load
        assert graph_dump(store) != before


def test_a_snapshot_on_a_full_disk_fails_naming_it_and_the_completed_load_stays(
    home: Home, tmp_path: Path
) -> None:
    """After the refresh above: a refresh back to the sample whose load's snapshot (written by
    biokg itself, after the engine's transaction) finds its folder full. The error names that
    folder and says the load is in the graph; the graph is that load's, as a clean build of
    the sample made it (test 1's graph, but the bridge, which follows the sources)."""
    settings = home.settings
    loads = settings.cache_dir / "loads"
    kept = shutil.copytree(loads, tmp_path / "loads")  # the snapshots, on the full tmpfs too
    with tmpfs(loads, "1m"):
        shutil.copytree(kept, loads, dirs_exist_ok=True)
        fill(loads)
        refresh = ["refresh", "--sources", "openfda", "--offline", "--sample", "--no-embed"]
        failed = runner.invoke(app, refresh, env=settings_env(settings))
    assert failed.exit_code == 1, failed.output
    message = " ".join(failed.output.split())
    assert "openfda: failed" in message, failed.output
    assert f"no space left on {loads / 'openfda'} (" in message, failed.output
    written = "the snapshot of infores:openfda's load was not written (the load itself is in"
    assert written in message, failed.output
    with GraphStore.connect(settings) as store:
        clean = dataclasses.replace(settings, database="clean")
        with GraphStore.connect(clean) as built:
            assert store.read(CURRENT, {"s": OPENFDA}) == built.read(CURRENT, {"s": OPENFDA})
            assert_same_graph(graph_dump(built), graph_dump(store))


def test_a_build_started_on_a_full_home_fails_at_once_naming_it(home: Home) -> None:
    """The home full before the command starts: the first file biokg writes (the graph's write
    lock's record, a ``write`` whose error names no file) fails, and the error names the home;
    nothing reaches the graph."""
    settings = home.settings
    with GraphStore.connect(settings) as store:
        before = snapshot(store)
        home.fill()
        try:
            build = ["build", "--sources", "openfda", "--sample", "--no-embed", "--force"]
            failed = runner.invoke(app, build, env=settings_env(settings))
        finally:
            home.free()
        assert failed.exit_code == 1, failed.output
        message = " ".join(failed.output.split())
        assert f"error: no space left on {settings.home} (" in message, failed.output
        assert "a file could not be written [[Errno 28] No space left on device]" in message
        assert "Traceback" not in failed.output
        assert snapshot(store) == before
        # the failed command let go of the graph's write lock although its error is still held
        with LexiconBuild(settings.cache_dir, wait=False) as lock:
            assert lock.held, "the write lock is still held by the failed command"
