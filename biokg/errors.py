"""The one error hierarchy of biokg: every failure a user can meet descends from BiokgError."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path


class BiokgError(Exception):
    """Root of every biokg error; the CLI turns it into a one-line message and exit code 1."""


class RetryableError(BiokgError):
    """A transient failure (network, engine busy); flows retry only these."""


class ConfigError(BiokgError):
    """A setting is missing or malformed."""


class SchemaError(BiokgError):
    """schema/ is malformed, or a record names a label, type or property it does not declare."""


class RecordValidationError(SchemaError):
    """A node or edge record breaks the schema (missing provenance, wrong prefix, bad type)."""


class SourceFormatError(BiokgError):
    """An input file does not follow its format; the message names the file and line."""


class CountBoundsError(BiokgError):
    """A source produced node or edge counts outside its declared bounds (truncated input?)."""


class StoreError(BiokgError):
    """The graph store refused a statement or could not be reached."""


class StoreUnavailableError(StoreError, RetryableError):
    """The graph store is not reachable right now."""


class FetchError(RetryableError):
    """Downloading a source file failed in a way that may pass (timeout, dropped connection,
    HTTP 5xx, 408 or 429)."""


class FetchRefusedError(BiokgError):
    """Fetching a source failed in a way retrying cannot fix within a run: the host name does
    not resolve, the server refused the request (HTTP 4xx other than 408 and 429), or a file
    does not match its published checksum. Flows fail at once instead of retrying."""


class UnsafeCypherError(BiokgError):
    """A query was refused by the agent's Cypher gate (writes, admin calls, unbounded paths)."""


class BudgetExceededError(BiokgError):
    """The agent's query, row or time budget for one question ran out."""


class QueryTimeoutError(BudgetExceededError):
    """A query ran past its time limit: the engine stopped it, or the client stopped waiting."""


class AgentInputError(BiokgError):
    """A question or agent option is invalid (empty, too long, unknown value)."""


class EntityNotFoundError(BiokgError):
    """No node in the graph has the requested id."""


class LLMError(RetryableError):
    """The LLM endpoint failed or answered something the planner cannot use."""


class EmbeddingError(BiokgError):
    """Embeddings cannot be made or searched (model missing, wrong dimensions, bad cache)."""


class BlockedError(BiokgError):
    """An upstream refused our requests (HTTP 403): stop, slow down and try again later."""


class GraphBusyError(BiokgError):
    """Another process is writing the graph (a build or refresh holds the write lock)."""


class DiskFullError(BiokgError):
    """A write failed for lack of disk space (the engine's database folder, or a file biokg
    writes in its home); the message names the folder, its free space and what to do
    (:meth:`on`)."""

    @classmethod
    def on(cls, path: Path, doing: str, remedy: str, *, cause: object = None) -> DiskFullError:
        """The error of a write ``doing`` that failed for lack of space on ``path``'s
        filesystem: ``no space left on <path> (<free> free of <total>): <doing> [<cause>];
        <remedy>``."""
        try:
            free, total = space_left(path)
            room = f" ({_size(free)} free of {_size(total)})"
        except OSError:
            room = ""
        said = " ".join(str(cause).split())[:200] if cause else ""
        detail = f" [{said}]" if said else ""
        return cls(f"no space left on {path}{room}: {doing}{detail}; {remedy}")


#: What to do about a full disk, the start of every :class:`DiskFullError`'s remedy.
FREE_SPACE = "free space there (or move BIOKG_HOME to a larger disk), then run the command again"
#: Free space under which a write the engine refused is taken to have failed for lack of it:
#: ArcadeDB tells a Bolt or HTTP client only "Error executing Cypher command" (its
#: ``IOException: No space left on device`` goes to its own log, on the same full disk), and a
#: transaction's log (WAL) or a new page file takes megabytes (decision 0030, "A full disk").
LOW_SPACE_BYTES = 64 << 20
#: errno values of a full disk: ENOSPC, and EDQUOT (a user's quota spent).
_FULL = (errno.ENOSPC, errno.EDQUOT)


def space_left(path: Path) -> tuple[int, int]:
    """(free, total) bytes of the filesystem holding ``path`` (its nearest existing folder)."""
    for folder in (path, *path.parents):
        if folder.exists():
            usage = shutil.disk_usage(folder)
            return usage.free, usage.total
    raise FileNotFoundError(path)


def low_on_space(path: Path) -> bool:
    """Whether the filesystem of ``path`` has less than :data:`LOW_SPACE_BYTES` free."""
    try:
        return space_left(path)[0] < LOW_SPACE_BYTES
    except OSError:
        return False


def is_disk_full(err: BaseException) -> bool:
    """Whether ``err`` is a write that failed for lack of space: an OSError of ENOSPC or
    EDQUOT, or a library's error saying so in its text (:data:`_FULL_TEXTS`)."""
    if isinstance(err, OSError) and err.errno is not None:
        return err.errno in _FULL
    text = str(err)
    return any(words in text for words in _FULL_TEXTS)


#: How libraries word a full disk in errors that are no OSError: the OS's own text (polars:
#: ``No space left on device (os error 28)``), and SQLite's ``database or disk is full``.
_FULL_TEXTS = ("No space left on device", "Disk quota exceeded", "database or disk is full")


def _size(count: int) -> str:
    """Bytes for a reader: ``0 B``, ``812 KiB``, ``63.9 MiB``, ``1.2 GiB``."""
    if count < 1 << 10:
        return f"{count} B"
    if count < 1 << 20:
        return f"{count >> 10} KiB"
    if count < 1 << 30:
        return f"{count / (1 << 20):.1f} MiB"
    return f"{count / (1 << 30):.1f} GiB"
