"""Every registered source keeps the contract of ``ingest/sources/base.py``, on its real offline
inputs: declared facts that match schema/, files that checksum to what ``fetch`` says, a version
read from the files, and records that validate with provenance naming the source and release.

A new source (PrimeKG, KEGG) is registered in ``ingest/sources/__init__.py`` and is then held to
all of this without a test of its own. Every field of its ``SOURCE`` has a check here
(:data:`FIELD_CHECKS`), and a field added to ``SourceInfo`` without one fails.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import polars as pl
import pytest
from offline_read import ReadOffline
from prefect.client.schemas.schedules import CronSchedule

from biokg.core.files import sha256
from biokg.core.settings import Settings
from biokg.ingest.build import build_order, code_key
from biokg.ingest.records import Release, validate
from biokg.ingest.sources import DEFAULT_SOURCES, SOURCES
from biokg.ingest.sources.base import Source, SourceInfo, Upstream
from biokg.schema import load_schema


def _https(url: str | None) -> bool:
    return url is not None and url.startswith("https://")


def _upstream(info: SourceInfo) -> bool:
    """A marker on the publisher's server, served by a mirror under a relative name; files a
    mirror serves, and their official URLs where the source has no online fetch of its own."""
    up = info.upstream
    official = up.official is None or (set(up.official) == set(up.files))
    relative = bool(up.marker_name) and not up.marker_name.startswith("/")
    return isinstance(up, Upstream) and _https(up.marker_url) and relative and official


def _schedule(info: SourceInfo) -> bool:
    """A valid cron line, or by hand only; an opt-in source is refreshed by hand only."""
    if info.schedule is None:
        return True
    return info.license_terms is None and CronSchedule(cron=info.schedule).cron == info.schedule


def _shared_data(info: SourceInfo) -> bool:
    """Relative paths that exist in the shared data folder the settings name."""
    root = Settings.from_env({}).shared_data
    paths = info.shared_data.values()
    return all(not p.startswith("/") and (root / p).exists() for p in paths)


#: One check per field of SourceInfo: what a registered source must declare there.
FIELD_CHECKS: dict[str, Callable[[SourceInfo], bool]] = {
    "name": lambda info: re.fullmatch(r"[a-z][a-z0-9]*", info.name) is not None,
    "infores": lambda info: re.fullmatch(r"infores:[a-z0-9-]+", info.infores) is not None,
    "license": lambda info: _https(info.license),
    "urls": lambda info: bool(info.urls) and all(map(_https, info.urls.values())),
    "upstream": _upstream,
    "schedule": _schedule,
    "bounds": lambda info: all(0 <= low <= high for low, high in info.bounds.values()),
    "parser_version": lambda info: bool(info.parser_version),
    # an opt-in source is built only when named
    "default": lambda info: not (info.default and info.license_terms),
    "rest_url": lambda info: info.rest_url is None or _https(info.rest_url),
    "license_terms": lambda info: info.license_terms is None or len(info.license_terms) > 20,
    "drugs": lambda info: isinstance(info.drugs, bool),
    "shared_data": _shared_data,
}


def test_the_registry_is_the_build_order_and_names_every_source_once() -> None:
    assert list(SOURCES) == build_order(SOURCES)
    assert set(DEFAULT_SOURCES) <= set(SOURCES)
    assert all(name == module.SOURCE.name for name, module in SOURCES.items())
    assert len({module.SOURCE.infores for module in SOURCES.values()}) == len(SOURCES)


@pytest.mark.parametrize("name", list(SOURCES))
def test_source_declares_what_schema_knows(name: str) -> None:
    source = SOURCES[name]
    info = source.SOURCE
    assert isinstance(source, Source)
    assert re.fullmatch(r"infores:[a-z0-9-]+", info.infores)
    assert info.license.startswith("https://") and info.urls and info.parser_version
    schema = load_schema()
    for key in info.bounds:
        kind, _, what = key.partition(":")
        assert (what in schema.labels) if kind == "nodes" else (what in schema.types), key


def test_every_field_of_a_source_is_held_to_the_contract() -> None:
    assert set(FIELD_CHECKS) == {f.name for f in dataclasses.fields(SourceInfo)}


@pytest.mark.parametrize("field", list(FIELD_CHECKS))
@pytest.mark.parametrize("name", list(SOURCES))
def test_source_declares_each_field(name: str, field: str) -> None:
    info = SOURCES[name].SOURCE
    assert FIELD_CHECKS[field](info), f"{name}: SOURCE.{field} = {getattr(info, field)!r}"


@pytest.mark.parametrize("name", list(SOURCES))
def test_source_reads_its_real_files_into_valid_records_with_provenance(
    name: str, offline_read: ReadOffline
) -> None:
    source, read = SOURCES[name], offline_read(name)
    fetched, records = read.fetched, read.records
    assert set(fetched.checksums) == set(fetched.files)
    assert all(sha256(path) == fetched.checksums[f] for f, path in fetched.files.items())
    assert source.discover_version(fetched.files) == fetched.version != ""
    assert read.frames and all(isinstance(f, pl.DataFrame) for f in read.frames.values())
    info = source.SOURCE
    validate(records, load_schema(), source=info.infores)
    info.check_bounds(records, scale_ok=fetched.sample)
    assert records.nodes and records.edges
    for label, nodes in records.nodes.items():
        assert nodes["category"].str.starts_with("biolink:").all(), label
        assert nodes["sources"].list.contains(info.infores).all(), label
    for rel_type, edges in records.edges.items():
        assert (edges["source"] == info.infores).all(), rel_type
        assert (edges["source_version"] == fetched.version).all(), rel_type
        assert edges["source_record"].null_count() == 0, rel_type
        assert edges["id"].n_unique() == edges.height, rel_type


def test_the_load_key_changes_with_the_code_not_only_the_inputs() -> None:
    source = SOURCES["go"]
    before = Release("infores:go", "v", "l", {"go-basic.obo": "abc"}, code=code_key(source))
    same = Release("infores:go", "v", "l", {"go-basic.obo": "abc"}, code=code_key(source))
    newer = Release(
        "infores:go", "v", "l", {"go-basic.obo": "abc"}, code={**before.code, "parser": "next"}
    )
    assert before.load_id == same.load_id != newer.load_id
    assert set(before.code) == {"parser", "schema", "identity"}
