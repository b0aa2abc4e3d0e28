"""Each source's real offline inputs read by its own module, as the source tests check them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from biokg.core.settings import Settings
from biokg.ingest.build import code_key
from biokg.ingest.records import Records, Release
from biokg.ingest.sources import SOURCES
from biokg.ingest.sources.base import Fetched

#: Sources with no offline copy to ship (KEGG may not be redistributed): their hand-written
#: fixture in the real formats stands in.
OFFLINE_FIXTURES = {"kegg": Path(__file__).parent / "data" / "kegg"}


def shared_sample(name: str) -> dict[str, Path]:
    """``name``'s sample in the shared data folder, where the tests' settings find it."""
    return SOURCES[name].SOURCE.fetch_options(Settings.from_env({}))["shared"]


@dataclass(frozen=True)
class OfflineRead:
    """One source's offline inputs as fetched, parsed and normalised by its own module."""

    fetched: Fetched
    frames: dict[str, pl.DataFrame]
    records: Records


#: What the ``offline_read`` fixture gives: a source's name to its :class:`OfflineRead`.
ReadOffline = Callable[[str], OfflineRead]


def read_offline(cache: Path, name: str) -> OfflineRead:
    """``name``'s offline inputs fetched into ``cache``, parsed, and normalised with the release
    a build makes (the code key included)."""
    source = SOURCES[name]
    options = source.SOURCE.fetch_options(Settings.from_env({}))
    fetched = source.fetch(cache, data_dir=OFFLINE_FIXTURES.get(name), offline=True, **options)
    frames = source.parse(fetched)
    info = source.SOURCE
    release = Release(
        info.infores, fetched.version, info.license, fetched.checksums, code=code_key(source)
    )
    return OfflineRead(fetched, frames, source.normalize(frames, release=release))
