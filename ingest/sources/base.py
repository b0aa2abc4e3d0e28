"""The source contract: what a source module declares and provides, checked in code.

A source module (``ingest/sources/<name>.py``) is a :class:`Source`: a ``SOURCE`` of facts
(:class:`SourceInfo`: infores id, licence and any terms to accept, official URLs, its release
marker, default refresh schedule, shared sample data, count bounds, parser version) and four
functions, in the order a build calls them:

* ``fetch(cache_dir, *, data_dir, offline) -> Fetched``: local input files with checksums;
* ``discover_version(files) -> str``: the release, from the files themselves;
* ``parse(fetched) -> dict[str, pl.DataFrame]``: the real format to frames, errors naming file
  and line;
* ``normalize(frames, *, release) -> Records``: frames to typed node and edge records.

``tests/ingest/test_source_contract.py`` holds every registered source to it. Everything else a
source needs (its refresh check, its Prefect deployment, its ``--accept-<name>-license`` flag) is
derived from these facts, so a source is one module and one registry entry (decision 0032).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import polars as pl

from biokg.core.files import sha256
from biokg.core.settings import Settings
from biokg.errors import ConfigError, CountBoundsError, SourceFormatError
from biokg.ingest.records import Records, Release

#: A marker reader: the release named in the marker's body (``where`` names it in errors).
MarkerReader = Callable[[bytes, str], str]


def json_field(*path: str) -> MarkerReader:
    """A marker reader: the string at ``path`` in a JSON document.

    Raises (the reader):
        SourceFormatError: the body is no JSON, or holds nothing at ``path``.
    """

    def read(body: bytes, where: str) -> str:
        try:
            value = json.loads(body)
            for key in path:
                value = value[key]
        except (ValueError, KeyError, TypeError) as err:
            raise SourceFormatError(
                f"{where}: expected a JSON document with {'.'.join(path)} ({err!r})"
            ) from err
        return str(value)

    return read


@dataclass(frozen=True)
class Upstream:
    """Where a source announces its release (its *marker*, :mod:`biokg.ingest.upstream`), and
    which files a mirror serves."""

    marker_url: str
    #: the marker's path under a mirror's base URL (``BIOKG_<NAME>_URL``)
    marker_name: str
    read_marker: MarkerReader
    #: file names a mirror serves (``.gz`` ones are unpacked); empty: the source's own fetch
    files: tuple[str, ...] = ()
    #: official URLs of ``files``; None: refreshed through the source's own online fetch
    official: dict[str, str] | None = None


@dataclass(frozen=True)
class SourceInfo:
    """Declarative facts about a source: who publishes it, under what licence, what to expect,
    how to tell a new release and when to look for one."""

    name: str
    infores: str
    license: str
    urls: dict[str, str]
    #: its release marker: what a refresh asks before downloading anything
    upstream: Upstream
    #: when its ``refresh-<name>`` deployment runs: a cron line in UTC that follows the
    #: publisher's release rhythm, or None for by hand only (flows/deploy.py)
    schedule: str | None
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
    #: (``biokg build --accept-<name>-license`` or ``BIOKG_<NAME>_ACCEPT_LICENSE=1``; the CLI
    #: makes the flag of every source that has terms). None: its licence alone governs use.
    license_terms: str | None = None
    #: Its offline sample in the shared data folder (``Settings.shared_data``,
    #: ``BIOKG_SHARED_DATA``): a name its ``fetch`` reads → a path under that folder (a file or
    #: a folder). Empty: its offline data comes with the code or the packages it installs.
    shared_data: dict[str, str] = field(default_factory=dict)
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

    def fetch_options(self, settings: Settings) -> dict[str, Any]:
        """The keyword arguments its ``fetch`` takes from ``settings``: ``base_url`` (the API,
        or the mirror ``BIOKG_<NAME>_URL`` names) and ``shared`` (its shared sample)."""
        options: dict[str, Any] = {}
        if self.rest_url:
            options["base_url"] = settings.source_url(self.name) or self.rest_url
        if self.shared_data:
            options["shared"] = {n: settings.shared_data / p for n, p in self.shared_data.items()}
        return options

    def shared_sample(self, shared: dict[str, Path] | None) -> dict[str, Path]:
        """``shared`` (what :meth:`fetch_options` resolved), for a fetch that reads its sample.

        Raises:
            ConfigError: none was given (``fetch`` called without the settings' options).
        """
        if shared is None:
            raise ConfigError(
                f"{self.name}: no data folder and no shared sample to read offline; pass "
                f"data_dir, or the shared sample of SOURCE.fetch_options(settings) "
                f"({', '.join(self.shared_data.values())} under BIOKG_SHARED_DATA)"
            )
        return shared

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
