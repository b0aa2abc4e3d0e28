"""The session graph of a distributed run, built once and copied to the other workers.

Each pytest-xdist worker keeps an engine of its own (tests/conftest.py ``store``), but building
the session graph (HPO, ChEMBL, openFDA through the real build, then its lexicon) is the run's
largest setup: ~160 s of CPU, the engine's three quarters of it, and every worker paid it. Now
the first worker to start its engine builds the graph, and leaves a snapshot in the run's shared
temp folder: the engine's own backup of the database (ArcadeDB's ``BACKUP DATABASE``, taken
while it serves) and the home's cache (loads, lexicon, node vectors). A worker that comes later
unpacks both into its fresh home before its engine starts, and serves a copy of its own: the
tests that write to their worker's graph still write to that worker's only. Decision 0031.
"""

from __future__ import annotations

import fcntl
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

from own_graph import SHARED_CACHE, engine_post

from biokg.core.settings import Settings
from biokg.core.store import GraphStore

#: The snapshot's parts in the shared folder; ``made`` is written last.
BACKUP, CACHE, MADE = "database.zip", "cache", "made"


def made(folder: Path) -> bool:
    """Whether a worker has left the snapshot in ``folder``."""
    return (folder / MADE).exists()


def connect_built(
    settings: Settings, folder: Path, build: Callable[[GraphStore], object]
) -> GraphStore:
    """The store of ``settings``' fresh home with the session graph in it: built by ``build``
    and saved to ``folder`` by the first process to get here, copied from ``folder`` by the
    others (they wait while it is built). A build that fails leaves no snapshot, so the next
    process builds again and fails with its own error."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if made(folder):
            _restore(folder, settings)
            return GraphStore.connect(settings)
        store = GraphStore.connect(settings)
        build(store)
        _save(store, settings, folder)
        (folder / MADE).touch()
        return store


def _save(store: GraphStore, settings: Settings, folder: Path) -> None:
    """The engine's backup of the database (consistent while it serves), and the home's cache
    but the folders every home links to the test data."""
    reply = engine_post(
        settings,
        f"command/{store.database}",
        {"language": "sql", "command": "BACKUP DATABASE"},
    )
    [done] = reply["result"]
    backups = settings.db_dir / "backups" / store.database
    shutil.move(backups / done["backupFile"], folder / BACKUP)
    shutil.copytree(
        settings.cache_dir,
        folder / CACHE,
        symlinks=True,
        ignore=lambda _dir, names: [n for n in names if n in SHARED_CACHE or n.endswith(".lock")],
    )


def _restore(folder: Path, settings: Settings) -> None:
    """Unpack the backup where the engine opens its database (as ArcadeDB's restore does) and
    copy the cache, before the engine of ``settings`` starts."""
    database = settings.db_dir / "databases" / settings.database_name
    if database.exists():
        raise RuntimeError(f"{database} exists: the session graph is restored into a fresh home")
    with zipfile.ZipFile(folder / BACKUP) as backup:
        backup.extractall(database)
    shutil.copytree(folder / CACHE, settings.cache_dir, symlinks=True, dirs_exist_ok=True)
