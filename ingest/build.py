"""A build: for each requested source, fetch → parse → normalize → validate, then write.

Every source is parsed and validated before anything is written, so a bad input file leaves the
graph exactly as it was. A source whose inputs match its current load (same checksums) is
skipped without parsing: "the same" means the same input checksums read by the same code (the
source's parser version, the schema's record shape, the identity rules), so a fix in any of
them reaches an existing graph; ``force`` reloads regardless. Last, the disease bridge
(:mod:`biokg.ingest.bridge`) joins the sources' diseases. The Prefect flow (flows/build.py) runs
these same functions as tasks.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

import polars as pl

from biokg import cypher
from biokg.core import names
from biokg.core.names import name_key
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import BiokgError, ConfigError
from biokg.ingest import identity as identity_rules
from biokg.ingest import named_edges
from biokg.ingest.bridge import mappings_dir, plan_bridge
from biokg.ingest.delta import save_snapshot
from biokg.ingest.identity import MergeReport, drug_entries, known_drugs, resolve_drug_records
from biokg.ingest.named_edges import resolve_named_edges
from biokg.ingest.records import Records, Release, validate
from biokg.ingest.sources import DEFAULT_SOURCES, SOURCES
from biokg.ingest.sources.base import Fetched, Source, SourceInfo
from biokg.ingest.writer import GraphWriter, LoadResult, Progress
from biokg.schema import load_schema

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_SOURCES",
    "SOURCES",
    "bridge",
    "build",
    "fetch_source",
    "fetch_sources",
    "prepare_records",
]


@dataclass(frozen=True)
class Planned:
    """A source's fetched inputs and the release they make."""

    name: str
    fetched: Fetched
    release: Release


def source_module(name: str) -> Source:
    """The module of a source by its short name.

    Raises:
        BiokgError: unknown name; the message lists the known ones.
    """
    try:
        return SOURCES[name]
    except KeyError:
        raise BiokgError(f"unknown source {name!r}; known sources: {', '.join(SOURCES)}") from None


def build_order(names: Iterable[str]) -> list[str]:
    """The requested sources in build order (identity: openFDA drugs merge onto ChEMBL's).

    Raises:
        BiokgError: an unknown source name.
    """
    names = list(names)
    for name in names:
        source_module(name)
    return sorted(set(names), key=list(SOURCES).index)


def fetch_source(
    name: str, settings: Settings, *, data_dir: Path | None = None, offline: bool = True
) -> Planned:
    """Fetch a source's files (cached) and describe the release they make.

    Raises:
        ConfigError: the source has terms the user has not accepted (nothing is fetched).
    """
    module = source_module(name)
    info = module.SOURCE
    check_license(info, settings)
    folder = data_dir or settings.source_dir(name)
    options = info.fetch_options(settings)
    fetched = module.fetch(settings.cache_dir, data_dir=folder, offline=offline, **options)
    release = Release(
        info.infores, fetched.version, info.license, fetched.checksums, code=code_key(module)
    )
    return Planned(name, fetched, release)


def fetch_sources(
    names: list[str], settings: Settings, *, data_dir: Path | None = None, offline: bool = True
) -> list[Planned]:
    """:func:`fetch_source` for each of ``names`` at once, in threads: downloads wait on the
    network (and KEGG's REST API on its 3 requests a second), not on each other. Returned in
    ``names``' order; the first failure in that order is raised once every fetch has ended.
    """
    with ThreadPoolExecutor(max_workers=max(1, len(names))) as pool:
        futures = [
            pool.submit(fetch_source, n, settings, data_dir=data_dir, offline=offline)
            for n in names
        ]
        return [future.result() for future in futures]


def check_licenses(names: Iterable[str], settings: Settings) -> None:
    """:func:`check_license` for each named source, before anything is started or fetched.

    Raises:
        BiokgError: an unknown source name; ConfigError: terms not accepted.
    """
    for name in build_order(names):
        check_license(source_module(name).SOURCE, settings)


def check_license(info: SourceInfo, settings: Settings) -> None:
    """An opt-in source's terms must be accepted before anything of it is fetched or built.

    Raises:
        ConfigError: not accepted; the message states the terms and how to accept them.
    """
    if info.license_terms is None or info.name in settings.accepted_licenses:
        return
    raise ConfigError(
        f"{info.name} is opt-in: {info.license_terms}. Nothing of it was fetched or built. "
        f"If your use meets these terms, accept them with `biokg build --sources {info.name} "
        f"--accept-{info.name}-license` or BIOKG_{info.name.upper()}_ACCEPT_LICENSE=1"
    )


def code_key(source: Source) -> dict[str, str]:
    """What, besides its inputs, decides a source's records: part of its load key."""
    return {
        "parser": source.SOURCE.parser_version,
        "schema": load_schema().records_digest,
        "identity": _identity_digest(),
    }


@cache
def _identity_digest() -> str:
    """Digest of the identity rules' code (drug merges, named edges, name keys): when it changes,
    drugs may merge differently, so every source is read again."""
    modules = (identity_rules, named_edges, names)
    text = b"".join(Path(m.__file__).read_bytes() for m in modules)  # type: ignore[arg-type]
    return hashlib.sha256(text).hexdigest()[:16]


def prepare_records(planned: Planned, *, sample: bool = False) -> Records:
    """Parse, normalize, validate and bound-check one source; nothing touches the graph.

    Args:
        sample: the inputs are a deliberate sample (a slice, a test file): only the upper count
            bounds apply. Sources also mark their own offline samples (``Fetched.sample``).

    Raises:
        SourceFormatError, RecordValidationError, CountBoundsError: with file/line or record.
    """
    module = source_module(planned.name)
    frames = module.parse(planned.fetched)
    records = module.normalize(frames, release=planned.release)
    validate(records, load_schema(), source=planned.release.source)
    module.SOURCE.check_bounds(records, scale_ok=sample or planned.fetched.sample)
    return records


def write_records(
    store: GraphStore,
    planned: Planned,
    records: Records,
    *,
    batch_size: int,
    bulk: bool = True,
    progress: Progress | None = None,
    identity: MergeReport | None = None,
    rewrite: bool = False,
) -> LoadResult:
    """Write one prepared source, with its merge report (constraints must exist: see
    :func:`build`); ``rewrite``: see :meth:`GraphWriter.load`."""
    return GraphWriter(store, load_schema(), batch_size=batch_size, bulk=bulk).load(
        records,
        planned.release,
        progress=progress,
        identity=load_identity(identity, records) if identity else None,
        rewrite=rewrite,
    )


def build(
    store: GraphStore,
    settings: Settings,
    sources: tuple[str, ...] = DEFAULT_SOURCES,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    sample: bool = False,
    force: bool = False,
    progress: Progress | None = None,
) -> list[LoadResult]:
    """Build or update the graph from ``sources``; unchanged sources are skipped unless
    ``force``.

    Raises:
        BiokgError: any source failed to fetch, parse or validate (nothing was written then),
            or the store rejected a write.
    """
    check_licenses(sources, settings)
    schema = load_schema()
    store.apply_schema(schema)
    writer = GraphWriter(store, schema, batch_size=settings.batch_size, bulk=settings.bulk_load)
    planned = fetch_sources(build_order(sources), settings, data_dir=data_dir, offline=offline)
    results, pending = plan_loads(
        store, settings, writer, planned, force=force, sample=sample, offline=offline
    )
    for plan, records, identity in pending:
        results.append(
            writer.load(
                records,
                plan.release,
                progress=progress,
                identity=load_identity(identity, records),
                rewrite=force,
            )
        )
        save_snapshot(settings.cache_dir, plan.release, records)  # a refresh's next baseline
    results.append(bridge(store, writer, settings, offline=offline))
    return results


def bridge(
    store: GraphStore, writer: GraphWriter, settings: Settings, *, offline: bool
) -> LoadResult:
    """Join the loaded sources' diseases through MONDO's mappings (:mod:`biokg.ingest.bridge`),
    after every build: a source that changed its diseases changes the bridge. Skipped when its
    mappings, the graph's diseases and the code are the current load's, also after ``--force``
    of a source (it reloads the sources it names; the bridge is derived from them, and the
    same inputs make the same bridge); a new load keeps its snapshot, so the next refresh's
    bridge is a delta (decision 0015), not a whole reload."""
    planned = plan_bridge(
        store, settings.cache_dir, data_dir=mappings_dir(settings, offline=offline), offline=offline
    )
    current = writer.current(planned.release)
    if current is not None:
        log.info("disease bridge unchanged (same mappings, same diseases); skipped")
        return current
    records, report = planned.records()
    result = writer.load(records, planned.release, identity=report.as_dict())
    save_snapshot(settings.cache_dir, planned.release, records)  # a refresh's next baseline
    return result


def resolve_identities(
    prepared: list[tuple[Planned, Records]], known: pl.DataFrame
) -> list[tuple[Planned, Records, MergeReport]]:
    """Put each source's Drug records onto the drugs of the sources before it in the registry.

    ``known`` is what each source states of the graph's Drug nodes (:func:`known_drugs`). A
    source's records are matched against the rows of the sources before it in registry order
    (PrimeKG's onto ChEMBL's, openFDA's onto both), never against later ones, and sources of
    this build count with their new records, not the graph's: so the merges do not depend on
    the order sources were built in (:func:`plan_loads` reloads a source whose earlier sources'
    identity rows changed). Then the source's edges that know a drug only by name (FAERS
    reports) are resolved against those drugs and its own, and validated again.

    Raises:
        RecordValidationError: a resolved edge breaks the schema.
    """
    rebuilt = {plan.release.source for plan, _ in prepared}
    known = known.filter(~pl.col("source").is_in(list(rebuilt)))
    out = []
    for plan, records in prepared:
        records, report, known = _resolve_source(plan, records, known)
        out.append((plan, records, report))
    return out


def _resolve_source(
    plan: Planned, records: Records, known: pl.DataFrame
) -> tuple[Records, MergeReport, pl.DataFrame]:
    """One source's step of :func:`resolve_identities`; ``known`` comes back with the source's
    rows replaced by its resolved records'."""
    schema = load_schema()
    rank = {module.SOURCE.infores: i for i, module in enumerate(SOURCES.values())}
    source = plan.release.source
    earlier = [s for s, i in rank.items() if i < rank.get(source, len(rank))]
    before = known.filter(pl.col("source").is_in(earlier))
    records, report = resolve_drug_records(records, before, schema, source=source)
    known = known.filter(pl.col("source").ne_missing(source))
    drugs = records.nodes.get("Drug")
    if drugs is not None and drugs.height:
        own = drugs.with_columns(pl.lit(source).alias("source"))
        known = pl.concat([known, own], how="diagonal_relaxed")
        before = pl.concat([before, own], how="diagonal_relaxed")
    if records.named_edges:
        records = resolve_named_edges(records, before, schema, report=report)
        validate(records, schema, source=source)
    if report.drugs or report.names.mentions:
        log.info("%s identity: %s", plan.name, report.as_dict())
    return records, report, known


#: Key, in the merge report kept with a load (``:SourceVersion.identity``), of the digest of the
#: load's Drug identity rows (:func:`identity_rows_digest`): what later sources' keys hold.
IDENTITY_ROWS = "identity_rows"


def identity_rows_digest(records: Records) -> str:
    """Digest of what identity resolution reads of a load's (resolved) Drug records when a later
    source merges onto them: each row's id, the name key of its own name, the name keys of all
    its names and its xrefs case-folded (:class:`~biokg.ingest.identity.DrugIndex` matches by
    nothing else; salt-free keys derive from name keys), and the id of each Drug stub (a drug
    its edges name, which :func:`~biokg.ingest.identity.known_drugs` lists for it without
    names). Row and list order do not count, so a release that changes only other properties,
    edges or other labels has the same digest."""
    drugs = records.nodes.get("Drug")
    rows = set()
    for entry in drug_entries(drugs) if drugs is not None else []:
        keys = sorted({name_key(n) for n in entry.names})
        refs = sorted({r.casefold() for r in entry.xrefs})
        primary = name_key(entry.primary) if entry.primary else ""
        rows.add("\t".join((entry.id, primary, "|".join(keys), "|".join(refs))))
    stubs = records.stubs.get("Drug")  # drugs its edges name: the graph lists them with no names
    rows |= {f"{id_}\t\t\t" for id_ in (stubs["id"] if stubs is not None else [])}
    text = "\n".join(sorted(rows))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_identity(report: MergeReport, records: Records) -> dict:
    """The merge report kept with a load, with its identity rows' digest (:data:`IDENTITY_ROWS`)."""
    return {**report.as_dict(), IDENTITY_ROWS: identity_rows_digest(records)}


def plan_loads(
    store: GraphStore,
    settings: Settings,
    writer: GraphWriter,
    planned: list[Planned],
    *,
    force: bool = False,
    sample: bool = False,
    offline: bool = True,
    dependents: bool = True,
    prepare: Callable[[Planned, bool], Records] | None = None,
) -> tuple[list[LoadResult], list[tuple[Planned, Records, MergeReport]]]:
    """Which sources to load, prepared and with their drug identities resolved, in build order;
    returns (the skipped sources' results, the sources to write with their merge reports).

    A drug source's records depend on the drugs of the drug sources before it in the registry
    (:func:`resolve_identities`). What identity reads of those is their Drug identity rows, so
    each drug source's load key holds their digests (``Release.context``: infores →
    :func:`identity_rows_digest`), not their load ids: a new PrimeKG release whose drugs are the
    same (1% of its edges changed) changes no later source's key. Sources are walked in registry
    order; each one's context is taken from the earlier ones as this build leaves them (the new
    digest of one prepared here, the kept digest of a current load otherwise), so a source is
    prepared only when its inputs, code or identity input changed (or ``force``). With
    ``dependents``, a current drug source not asked for whose context changes is fetched again
    (cached) and reloaded, when its files are still the ones its current load read (otherwise a
    warning says to rebuild it from its own files). ``prepare`` (plan, sample) → records
    replaces :func:`prepare_records` (the Prefect flow passes its task). Nothing is written.

    Raises:
        SourceFormatError, RecordValidationError, CountBoundsError: from preparing a source.
    """
    current = _current_loads(store)
    by_name = {plan.name: plan for plan in planned}
    context: dict[str, str] = {}
    known: pl.DataFrame | None = None  # the graph's drug rows, read when a source needs them
    skipped: list[LoadResult] = []
    pending: list[tuple[Planned, Records, MergeReport]] = []
    for name, module in SOURCES.items():
        info = module.SOURCE
        load = current.get(info.infores)
        plan = by_name.get(name)
        if plan is None and dependents and info.drugs and load is not None:
            if load.context != context:  # the identity rows it merged onto changed
                plan = _refetch(name, settings, load, offline=offline)
        rows = load.rows if load is not None else None
        if plan is not None:
            if info.drugs:
                release = dataclasses.replace(plan.release, context=dict(context))
                plan = dataclasses.replace(plan, release=release)
            result = None if force else writer.current(plan.release)
            if result is not None:
                log.info(
                    "%s %s unchanged (inputs match the current load); skipped",
                    plan.name,
                    plan.release.version,
                )
                skipped.append(result)
            else:
                records = (prepare or _prepare)(plan, sample)
                report = MergeReport(info.infores)
                if info.drugs or "Drug" in records.nodes or records.named_edges:
                    known = known_drugs(store) if known is None else known
                    records, report, known = _resolve_source(plan, records, known)
                pending.append((plan, records, report))
                rows = identity_rows_digest(records)
        if info.drugs and rows is not None:
            context[info.infores] = rows
    return skipped, pending


def _prepare(plan: Planned, sample: bool) -> Records:
    return prepare_records(plan, sample=sample)


def identity_context(store: GraphStore, name: str) -> dict[str, str]:
    """A drug source's context on the graph's current loads (a refresh's rule): the identity
    rows' digests of the current loads of the drug sources before it in the registry."""
    current = _current_loads(store)
    context: dict[str, str] = {}
    for other, module in SOURCES.items():
        if other == name:
            break
        info = module.SOURCE
        if info.drugs and info.infores in current:
            context[info.infores] = current[info.infores].rows
    return context


def with_context(store: GraphStore, planned: Planned) -> Planned:
    """``planned`` keyed on the graph's current loads (:func:`identity_context`), if a drug
    source."""
    if not source_module(planned.name).SOURCE.drugs:
        return planned
    release = dataclasses.replace(planned.release, context=identity_context(store, planned.name))
    return dataclasses.replace(planned, release=release)


def _refetch(name: str, settings: Settings, load: CurrentLoad, *, offline: bool) -> Planned | None:
    """A dependent source's files again, if they are still the ones its current load read."""
    plan = fetch_source(name, settings, offline=offline)
    if plan.release.checksums != load.checksums:
        log.warning(
            "%s: the drugs it merged onto changed, but its current load read other files than "
            "it finds now; rebuild it from its own files (biokg build --sources %s --data-dir "
            "...) to merge its drugs onto theirs",
            name,
            name,
        )
        return None
    log.info("%s: the drugs it merges onto changed; reloading it", name)
    return plan


def identity_stale(store: GraphStore) -> list[str]:
    """Current drug sources whose drugs merged onto identity rows that are no longer current (a
    refresh of an earlier source changed its Drug names or xrefs): they must be loaded again,
    in build order. A new release of an earlier source with the same identity rows makes none
    stale."""
    current = _current_loads(store)
    context: dict[str, str] = {}
    stale = []
    for name, module in SOURCES.items():
        info = module.SOURCE
        if not (info.drugs and info.infores in current):
            continue
        if current[info.infores].context != context:
            stale.append(name)
        context[info.infores] = current[info.infores].rows
    return stale


class CurrentLoad(NamedTuple):
    """What identity needs of a source's current load."""

    load_id: str
    #: the identity rows its drugs merged onto (infores → digest)
    context: dict[str, str]
    #: the input files it read
    checksums: dict[str, str]
    #: the digest of its own Drug identity rows (:func:`identity_rows_digest`); a load written
    #: before these were kept stands for itself (``load:<load id>``)
    rows: str


def _current_loads(store: GraphStore) -> dict[str, CurrentLoad]:
    out = {}
    for row in store.read(cypher.load("build_current_loads")):
        identity = json.loads(row["identity"]) if row["identity"] else {}
        out[row["source"]] = CurrentLoad(
            row["load_id"],
            json.loads(row["context"] or "{}"),
            json.loads(row["checksums"] or "{}"),
            identity.get(IDENTITY_ROWS) or f"load:{row['load_id']}",
        )
    return out
