"""File helpers every stage shares (ingest, model exports, RDF export): checksums of inputs,
and writes that are all or nothing.

A fetch, an offline build or a model export can be killed at any moment; what it leaves under
the real name must then be either the old file or the complete new one, never half of one, so a
rerun trusts what it finds. :func:`atomic_path` gives the writer a sibling path and renames it
into place only when the block finished.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from biokg.errors import DiskFullError, is_disk_full


def sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """A sibling path to write ``target`` (a file or a folder) at; it replaces ``target`` when
    the block ends normally and is removed when it raises. Parent folders are created."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    _remove(partial)
    try:
        yield partial
    except BaseException:
        _remove(partial)
        raise
    if partial.is_dir():
        _remove(target)  # os.replace cannot replace a folder that has files
    os.replace(partial, target)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def made_once(target: Path, ready: Callable[[], bool], make: Callable[[Path], object]) -> Path:
    """``target``, made by ``make(target)`` unless ``ready()``; one maker at a time across
    processes (an ``flock`` beside it): two processes that find a model missing (a build beside
    a server, parallel test workers) make it once, and neither reads a folder the other is
    replacing."""
    if ready():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(f"{target.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready():  # made by another process while this one waited
            make(target)
    return target


@contextmanager
def space_for(path: Path, doing: str, remedy: str) -> Iterator[None]:
    """A write in the block that fails for lack of space (an OSError, or a library's error
    saying so) becomes :meth:`DiskFullError.on` naming ``path``."""
    try:
        yield
    except Exception as err:
        if is_disk_full(err):
            raise DiskFullError.on(path, doing, remedy, cause=err) from err
        raise
