"""Streams of rows shared by the exports and the store's scans: batches, and reading ahead in a
worker thread so that the engine, the driver's decoding and the writing run at once."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
#: Rows a batch holds, and how many batches a reader keeps ahead of the writer by default.
BATCH_ROWS = 5_000
READ_AHEAD_BATCHES = 40
#: How often a blocked worker looks whether its reader has gone (seconds).
_POLL_S = 0.1


def chunks(rows: Iterable[T], size: int) -> Iterator[list[T]]:
    """``rows`` in lists of ``size`` (the last may be shorter)."""
    batch: list[T] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def read_ahead(
    items: Iterator[T], *, batch: int = BATCH_ROWS, depth: int = READ_AHEAD_BATCHES
) -> Iterator[T]:
    """``items`` read by a worker thread up to ``depth`` batches of ``batch`` ahead of the
    caller. The worker stops when the caller stops reading (the generator is closed).

    Raises:
        Exception: whatever the reading raised, here in the caller's thread.
    """
    batches: queue.Queue[list[T] | BaseException | None] = queue.Queue(depth)
    gone = threading.Event()

    def put(item: list[T] | BaseException | None) -> bool:
        while not gone.is_set():
            try:
                batches.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for part in chunks(items, batch):
                if not put(part):
                    return
            put(None)
        except Exception as err:  # handed to the caller's thread
            put(err)

    threading.Thread(target=read, name="biokg-read-ahead", daemon=True).start()
    try:
        while (item := batches.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield from item
    finally:
        gone.set()
