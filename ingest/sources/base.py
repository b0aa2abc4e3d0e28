"""The source contract: what a source module declares and provides, checked in code.

A source module (``ingest/sources/<name>.py``) is a :class:`Source`: a ``SOURCE`` of facts
(:class:`SourceInfo`: infores id, licence, official URLs, count bounds, parser version) and four
functions, in the order a build calls them:

* ``fetch(cache_dir, *, data_dir, offline) -> Fetched``: local input files with checksums;
* ``discover_version(files) -> str``: the release, from the files themselves;
* ``parse(fetched) -> dict[str, pl.DataFrame]``: the real format to frames, errors naming file
  and line;
* ``normalize(frames, *, release) -> Records``: frames to typed node and edge records.

``tests/ingest/test_source_contract.py`` holds every registered source to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import polars as pl

from biokg.errors import ConfigError, CountBoundsError
from biokg.files import sha256
from biokg.ingest.records import Records, Release


@dataclass(frozen=True)
class SourceInfo:
    """Declarative facts about a source: who publishes it, under what licence, what to expect."""

    name: str
    infores: str
    license: str
    urls: dict[str, str]
    #: "nodes:<Label>" / "edges:<TYPE>" -> (min, max) counts a complete load must fall within
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Raise it whenever parse or normalize would turn the same files into other records: a
    #: load is keyed on it, so the next build reloads the source instead of skipping it.
    parser_version: str = "1"
    #: Built by ``biokg build`` without ``--sources`` (opt-in sources, e.g. for licence: False).
    default: bool = True
    #: The REST API an online fetch talks to; ``BIOKG_<NAME>_URL`` points it elsewhere (a
    #: mirror, a test server), passed to ``fetch`` as ``base_url``. None: files, not an API.
    rest_url: str | None = None
    #: Terms the user must accept before anything of the source is fetched or built
    #: (``biokg build --accept-<name>-license`` or ``BIOKG_<NAME>_ACCEPT_LICENSE=1``).
    license_terms: str | None = None
    #: Its records define Drug nodes, which identity merges onto the drugs of the sources before
    #: it in the registry: its load is keyed on their Drug identity rows (build.plan_loads).
    drugs: bool = False

    def files_in(self, data_dir: Path) -> dict[str, Path]:
        """The source's files under their standard names in a user's folder.

        Raises:
            ConfigError: some are missing; the message names them and where they come from.
        """
        files = {name: Path(data_dir) / name for name in self.urls}
        missing = [name for name, path in files.items() if not path.is_file()]
        if missing:
            raise ConfigError(
                f"{self.name}: {', '.join(missing)} not found in {data_dir}; put the release "
                f"files there ({', '.join(self.urls.values())}) or leave the data folder unset"
            )
        return files

    def check_bounds(self, records: Records, *, scale_ok: bool = False) -> None:
        """Fail a load whose counts fall outside the declared bounds, listing every miss.

        ``scale_ok`` relaxes only the lower bounds, for deliberately small inputs (test fixtures,
        quick-start slices); upper bounds always hold.

        Raises:
            CountBoundsError: one or more counts out of bounds.
        """
        counts = records.counts()
        misses = []
        for key, (low, high) in sorted(self.bounds.items()):
            n = counts.get(key, 0)
            if n > high or (n < low and not scale_ok):
                misses.append(f"{key}={n} outside [{low}, {high}]")
        if misses:
            raise CountBoundsError(
                f"{self.name}: counts out of bounds ({'; '.join(misses)}); the input looks "
                "truncated or is not the expected file"
            )


@dataclass(frozen=True)
class Fetched:
    """Local input files of one source load, with their sha256 and the discovered version."""

    files: dict[str, Path]
    version: str
    checksums: dict[str, str]
    #: the files are a known subset of a release (offline samples): only upper bounds apply
    sample: bool = False


def fetched(files: dict[str, Path], version: str, *, sample: bool = False) -> Fetched:
    """Build a :class:`Fetched` for local files, checksumming each."""
    checksums = {name: sha256(path) for name, path in sorted(files.items())}
    return Fetched(files, version, checksums, sample)


@runtime_checkable
class Source(Protocol):
    """A source module's surface (see the module docstring); modules satisfy it structurally."""

    SOURCE: SourceInfo

    def fetch(
        self, cache_dir: Path, *, data_dir: Path | None = None, offline: bool = True
    ) -> Fetched: ...

    def discover_version(self, files: dict[str, Path]) -> str: ...

    def parse(self, fetched: Fetched) -> dict[str, pl.DataFrame]: ...

    def normalize(self, frames: dict[str, pl.DataFrame], *, release: Release) -> Records: ...
