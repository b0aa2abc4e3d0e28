"""A refresh: bring each source's load up to what its publisher has now, writing only the change.

Per source, in build order (drug identity: later sources merge onto earlier ones' drugs):

1. **check** (:func:`check`): one conditional request for the source's release marker
   (:mod:`biokg.ingest.upstream`). The same release read by the same code as the current load:
   *unchanged*, nothing downloaded, parsed or written. Offline (no marker to ask), the inputs'
   checksums decide, as ``biokg build`` does.
2. **fetch** (:func:`fetch_inputs`): the source's files (downloads are conditional and cached).
   The same files and code as the current load: unchanged (a new marker is remembered).
3. **load** (:func:`load_changes`): parse, validate and resolve identities like a build, then
   compare with the current load's snapshot and write only the difference, in one transaction
   (:mod:`biokg.ingest.delta`); without a snapshot the source is loaded whole, as a build does.

A drug source's load is keyed on the Drug identity rows of the drug sources before it
(:func:`~biokg.ingest.build.plan_loads`): a refresh that changes those (an earlier source's drug
names or xrefs) refreshes the later drug sources too, each as a delta of what its merges now
change; a release that changes only edges or other properties (1% of PrimeKG's rows) reloads
nothing else.

The Prefect flows (flows/refresh.py) run these steps as tasks; :func:`refresh` runs them for the
CLI. Each source ends with a :class:`SourceReport`, kept with the load it made on its
``:SourceVersion`` (``refresh``): an unchanged source writes nothing, so the graph's history is
the history of changes (``biokg status --history``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import textwrap
import time
from collections.abc import Iterable
from dataclasses import dataclass

from biokg import cypher
from biokg.core.embedding.static import node_embedder
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import BiokgError
from biokg.ingest.bridge import INFORES as BRIDGE
from biokg.ingest.bridge import mappings_dir, plan_bridge
from biokg.ingest.build import (
    Planned,
    build_order,
    check_licenses,
    code_key,
    fetch_source,
    identity_stale,
    load_identity,
    prepare_records,
    resolve_identities,
    source_module,
    with_context,
)
from biokg.ingest.delta import apply_delta, diff, load_snapshot, save_snapshot
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.ingest.identity import known_drugs
from biokg.ingest.records import Records, Release
from biokg.ingest.upstream import UpstreamState, check_upstream, download_inputs
from biokg.ingest.writer import GraphWriter, release_props
from biokg.schema import load_schema

log = logging.getLogger(__name__)

UNCHANGED, UPDATED, RELOADED, FAILED = "unchanged", "updated", "reloaded", "failed"
#: the disease bridge's row in a report (it is refreshed after the sources, when any changed)
BRIDGE_NAME = "bridge"


@dataclass
class SourceReport:
    """What a refresh did to one source."""

    source: str
    status: str
    version_before: str | None = None
    version_after: str | None = None
    nodes_added: int = 0
    nodes_changed: int = 0
    nodes_removed: int = 0
    nodes_obsoleted: int = 0
    edges_added: int = 0
    edges_changed: int = 0
    edges_removed: int = 0
    #: write transactions (and engine write requests) the refresh of this source sent
    writes: int = 0
    duration_s: float = 0.0
    #: the release the upstream marker names (None offline)
    upstream: str | None = None
    message: str = ""

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class CurrentLoad:
    """The source's current load as the graph records it."""

    id: str
    load_id: str
    version: str
    code: dict
    upstream: UpstreamState | None


def current_load(store: GraphStore, name: str) -> CurrentLoad | None:
    """The current ``:SourceVersion`` of a source (``name`` short, or the bridge), if any."""
    infores = BRIDGE if name == BRIDGE_NAME else source_module(name).SOURCE.infores
    rows = store.read(cypher.load("refresh_current_load"), {"source": infores})
    if not rows:
        return None
    row = rows[0]
    code = json.loads(row["code"]) if row["code"] else {}
    upstream = UpstreamState.from_json(row["upstream"])
    return CurrentLoad(row["id"], row["load_id"], row["version"], code, upstream)


def check(
    name: str, settings: Settings, current: CurrentLoad | None, *, offline: bool
) -> tuple[UpstreamState | None, bool]:
    """Ask the upstream marker (not offline without a mirror); (its state, unchanged?).

    Raises:
        FetchError: the marker could not be read (retryable); ConfigError, SourceFormatError.
    """
    if offline and settings.source_url(name) is None:
        return None, False
    previous = current.upstream if current else None
    state = check_upstream(name, settings, previous)
    same_code = current is not None and current.code == code_key(source_module(name))
    unchanged = same_code and previous is not None and previous.version == state.version
    return state, unchanged


def fetch_inputs(name: str, settings: Settings, *, offline: bool) -> Planned:
    """The source's input files: its mirror's or official downloads, else what a build reads.

    Raises:
        FetchError (retryable), ConfigError, SourceFormatError: as ``fetch_source``.
    """
    folder, mirror = None, settings.source_url(name)
    if not offline or mirror:
        folder = download_inputs(name, settings)
    # a mirror of a source fetched by its own online client is that client's to read
    online = folder is None and (not offline or mirror is not None)
    return fetch_source(name, settings, data_dir=folder, offline=not online)


def load_changes(
    store: GraphStore,
    settings: Settings,
    planned: Planned,
    upstream: UpstreamState | None,
    *,
    sample: bool = False,
) -> SourceReport:
    """Load what changed in one source (module docstring, step 3); counts in the report.

    Raises:
        SourceFormatError, RecordValidationError, CountBoundsError: bad input (nothing written).
        StoreError: the store refused the delta (nothing of it written).
    """
    writes = store.writes
    planned = with_context(store, planned)  # keyed on the identity rows of earlier sources
    current = current_load(store, planned.name)
    report = SourceReport(
        planned.name,
        UNCHANGED,
        version_before=current.version if current else None,
        version_after=planned.release.version,
        upstream=upstream.version if upstream else None,
    )
    if current is not None and current.load_id == planned.release.load_id:
        if upstream is not None and upstream != current.upstream:
            _mark(store, current.id, {"upstream": upstream.to_json()})
        report.writes = store.writes - writes
        return report
    records = prepare_records(planned, sample=sample)
    [(plan, records, identity)] = resolve_identities([(planned, records)], known_drugs(store))
    identity_props = load_identity(identity, records)
    _load(store, settings, plan.release, records, identity_props, current, report, upstream)
    report.writes = store.writes - writes
    return report


def refresh_bridge(store: GraphStore, settings: Settings, *, offline: bool) -> SourceReport:
    """Re-join the sources' diseases (:mod:`biokg.ingest.bridge`) as a delta of its own."""
    writes = store.writes
    current = current_load(store, BRIDGE_NAME)
    planned = plan_bridge(
        store, settings.cache_dir, data_dir=mappings_dir(settings, offline=offline), offline=offline
    )
    report = SourceReport(
        BRIDGE_NAME,
        UNCHANGED,
        current.version if current else None,
        planned.release.version,
    )
    if current is None or current.load_id != planned.release.load_id:
        records, bridged = planned.records()
        _load(store, settings, planned.release, records, bridged.as_dict(), current, report, None)
    report.writes = store.writes - writes
    return report


def _load(
    store: GraphStore,
    settings: Settings,
    release: Release,
    records: Records,
    identity: dict | None,
    current: CurrentLoad | None,
    report: SourceReport,
    upstream: UpstreamState | None,
) -> None:
    """Write a new load as a delta against the current one's snapshot, or whole without one."""
    schema = load_schema()
    baseline = (
        load_snapshot(settings.cache_dir, release.source, current.load_id) if current else None
    )
    extra = {"upstream": upstream.to_json()} if upstream else {}
    if baseline is None:
        store.apply_schema(schema)  # a first load: constraints before any write
        writer = GraphWriter(store, schema, batch_size=settings.batch_size, bulk=settings.bulk_load)
        result = writer.load(records, release, identity=identity)
        report.status = RELOADED
        report.nodes_added, report.nodes_changed = result.nodes_created, result.nodes_updated
        report.edges_added, report.edges_removed = result.edges_written, result.edges_deleted
        report.message = "no snapshot of the current load: loaded whole"
        _mark(store, f"{release.id}#{release.load_id}", {**extra, "refresh": _summary(report)})
    else:
        delta = diff(baseline, records)
        for key, value in delta.counts().items():
            setattr(report, key, value)
        report.status = UPDATED
        props = {**release_props(records, release, identity), **extra}
        props["refresh"] = _summary(report)
        apply_delta(store, schema, delta, release, props)
    save_snapshot(settings.cache_dir, release, records)


def _summary(report: SourceReport) -> str:
    """The report kept on the load's ``:SourceVersion`` (its duration is not known yet)."""
    return json.dumps({k: v for k, v in report.as_dict().items() if k != "duration_s"})


def _mark(store: GraphStore, version_id: str, props: dict) -> None:
    store.write(cypher.load("refresh_mark_load"), {"id": version_id, "props": props})


def embed_changes(store: GraphStore, settings: Settings) -> dict:
    """Embed the text of new and changed nodes (unchanged texts are not written)."""
    with VectorCache.default(settings) as cache:
        return dataclasses.asdict(embed_graph(store, node_embedder(settings), cache=cache))


def refresh_source(
    store: GraphStore,
    settings: Settings,
    name: str,
    *,
    offline: bool = False,
    sample: bool = False,
) -> SourceReport:
    """Steps 1-3 for one source; a :class:`BiokgError` becomes a failed report (the graph is
    as it was: nothing is written before the delta's one transaction)."""
    started = time.monotonic()
    current = current_load(store, name)
    try:
        state, unchanged = check(name, settings, current, offline=offline)
        if unchanged and name in identity_stale(store):
            unchanged = False  # an earlier source's Drug identity rows changed: merge again
        if unchanged:
            report = SourceReport(
                name, UNCHANGED, current.version, current.version, upstream=state.version
            )
        else:
            planned = fetch_inputs(name, settings, offline=offline)
            report = load_changes(store, settings, planned, state, sample=sample)
    except BiokgError as err:
        log.warning("refresh of %s failed: %s", name, err)
        report = SourceReport(name, FAILED, current.version if current else None, message=str(err))
    report.duration_s = round(time.monotonic() - started, 3)
    return report


def refresh(
    store: GraphStore,
    settings: Settings,
    sources: Iterable[str],
    *,
    offline: bool = False,
    sample: bool = False,
    embed: bool = True,
) -> list[SourceReport]:
    """Refresh ``sources`` (every one even when another fails), then the disease bridge and
    the embeddings when any source changed. A failed source's row says why.

    Raises:
        BiokgError: an unknown source, or an opt-in source whose terms are not accepted.
    """
    names = build_order(sources)
    check_licenses(names, settings)
    reports = [refresh_source(store, settings, n, offline=offline, sample=sample) for n in names]
    for name in identity_stale(store):  # merged onto identity rows a refresh just changed
        if name not in names:
            reports.append(refresh_source(store, settings, name, offline=offline, sample=sample))
    if any(r.status in (UPDATED, RELOADED) for r in reports):
        try:
            reports.append(refresh_bridge(store, settings, offline=offline))
        except BiokgError as err:
            reports.append(SourceReport(BRIDGE_NAME, FAILED, message=str(err)))
        if embed:
            log.info("embeddings: %s", embed_changes(store, settings))
    return reports


#: Columns of a terminal the text report fits.
TERMINAL_COLUMNS = 80


def text_report(reports: Iterable[SourceReport], *, width: int = TERMINAL_COLUMNS) -> str:
    """The run report for a terminal (``biokg refresh``, the flow's log): one line per source
    within ``width`` columns (a long one continues indented), a failed source's reason below
    it. The Markdown table has every column; this one has what a reader scans for."""
    lines = ["source: status, release before → after, nodes and edges +added ~changed −removed"]
    for r in reports:
        line = f"{r.source}: {r.status}, {r.version_before or '-'} → {r.version_after or '-'}"
        if r.status != FAILED:
            line += (
                f", nodes +{r.nodes_added} ~{r.nodes_changed} −{r.nodes_removed}"
                f", edges +{r.edges_added} ~{r.edges_changed} −{r.edges_removed}"
                f", {r.duration_s:.1f} s"
            )
        lines += textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False)
        if r.message:  # not at a path's hyphens: "no space left on <home>" must read whole
            lines += textwrap.wrap(
                r.message,
                width,
                initial_indent="    ",
                subsequent_indent="    ",
                break_on_hyphens=False,
            )
    return "\n".join(lines) + "\n"


def markdown_report(reports: Iterable[SourceReport], *, title: str = "biokg refresh") -> str:
    """The run report as a Markdown table (the Prefect artifact; ``biokg refresh`` prints it)."""
    lines = [
        f"# {title}",
        "",
        "| source | status | version before → after | nodes +/~/− | edges +/~/− | writes | "
        "seconds | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        nodes = f"+{r.nodes_added} ~{r.nodes_changed} −{r.nodes_removed}"
        if r.nodes_obsoleted:
            nodes += f" ({r.nodes_obsoleted} obsoleted)"
        edges = f"+{r.edges_added} ~{r.edges_changed} −{r.edges_removed}"
        note = r.message.replace("|", "/").replace("\n", " ")
        lines.append(
            f"| {r.source} | {r.status} | {r.version_before or '-'} → {r.version_after or '-'} "
            f"| {nodes} | {edges} | {r.writes} | {r.duration_s:.1f} | {note} |"
        )
    return "\n".join(lines) + "\n"
