"""Batched, idempotent writes of validated records into the graph store.

Each batch is one transaction of ``UNWIND $rows`` statements loaded from cypher/ by name; labels
and types are substituted only after schema/ validated them. Nodes: existing ids are looked up
through the unique index, missing ones CREATEd, existing ones updated (the dialect notes why
this beats ``MERGE (n:A:B)`` on the embedded engine). Edges: the source's existing edge ids
are read once per type; new ids are CREATEd (no per-row MERGE check), ids written by an earlier
load are rewritten in place, and ids this same load already wrote (a killed run) are skipped.

On the embedded engine a first build takes a faster road for new edges (``bulk``, on by default):
endpoints are resolved to record ids once per load (one scan per label); each request of
:data:`BULK_BATCHES` write batches is checked for missing endpoints (then refused before it is
sent) and handed to ArcadeDB's batch loader as NDJSON. The edges, their ids and properties are
the same as the Cypher road writes (a test builds both ways and compares); edges of earlier
loads are still rewritten with Cypher, as on Neo4j. ``docs/decisions/0010-fast-first-build.md``
has the numbers.

Nodes are written as the source's *facts* (:mod:`biokg.ingest.node_facts`): each source's values
are kept on the node and the shown ones chosen by schema/'s precedence, so the graph does not
depend on the order sources were loaded in.

Re-running converges: every statement is an upsert, the :SourceVersion record of a load is
written last (a killed load is never marked current, so the next run redoes it), and before that
the source's edges from other loads are deleted as stale and its facts of other loads taken off
the nodes it no longer asserts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import neo4j
import polars as pl

from biokg import cypher
from biokg.core.store import GraphStore
from biokg.errors import RecordValidationError, StoreError
from biokg.ingest import node_facts
from biokg.ingest.node_facts import Chooser, release_node_facts
from biokg.ingest.records import Records, Release
from biokg.schema import GraphSchema

log = logging.getLogger(__name__)

#: Called after every committed batch with (what, rows done, rows total).
Progress = Callable[[str, int, int], None]
STALE_DELETE_BATCH = 20_000
#: Text per write batch (see :func:`batches`): facts of merged nodes can double it on the wire.
BATCH_TEXT_BYTES = 4_000_000
#: Finding the nodes a source no longer asserts scans its nodes once per load.
STALE_READ_TIMEOUT_S = 600.0
#: Edges per request to the embedded engine's batch loader, in write batches (50,000 edges,
#: ~25 MB of NDJSON, at the default batch size).
BULK_BATCHES = 5
_CONTROL = ("@type", "@class", "@from", "@to")


@dataclass(frozen=True)
class LoadResult:
    """What one load wrote (zero everywhere when skipped as unchanged)."""

    source: str
    version: str
    skipped: bool
    nodes_created: int = 0
    nodes_updated: int = 0
    edges_written: int = 0
    edges_deleted: int = 0
    #: the load's merge report: drug identity (biokg.ingest.identity) when the source has
    #: drugs, the disease bridge's (biokg.ingest.bridge) for its own load
    identity: dict | None = None


class GraphWriter:
    """Writes one source's :class:`Records` to a :class:`GraphStore`."""

    def __init__(
        self,
        store: GraphStore,
        schema: GraphSchema,
        *,
        batch_size: int = 10_000,
        bulk: bool = True,
    ) -> None:
        self.store = store
        self.schema = schema
        self.batch_size = batch_size
        self.bulk = bulk and store.http_api  # the engine's batch loader for new edges
        self._handles: dict[str, dict[str, str]] = {}  # label → id → record id, for one load

    def is_current(self, release: Release) -> bool:
        """True when the store's current load of this source read exactly these inputs."""
        return self.current(release) is not None

    def current(self, release: Release) -> LoadResult | None:
        """The skipped result for inputs the current load already read (with its merge report).

        None when this source's current load read other inputs, or there is none.
        """
        rows = self.store.read(cypher.load("source_version_current"), {"source": release.source})
        if not rows or rows[0]["load_id"] != release.load_id:
            return None
        identity = json.loads(rows[0]["identity"]) if rows[0]["identity"] else None
        return LoadResult(release.source, release.version, skipped=True, identity=identity)

    def load(
        self,
        records: Records,
        release: Release,
        *,
        progress: Progress | None = None,
        identity: dict | None = None,
        rewrite: bool = False,
    ) -> LoadResult:
        """Write nodes, stubs, edges, then the :SourceVersion record; delete stale edges.

        Edges this same load already wrote (a killed load run again) are skipped, unless
        ``rewrite`` (``biokg build --force``): then they are written again like any other.

        ``identity`` (the drug merge report) is kept with the load, so a later build that skips
        these unchanged inputs still reports it.

        Raises:
            RecordValidationError: a record would relabel an existing node, or named edges
                were not resolved to Drug nodes.
            StoreError: the store rejected a batch, or an edge lost an endpoint.
        """
        if records.named_edges:
            raise RecordValidationError(
                f"{release.source}: {', '.join(sorted(records.named_edges))} edges still name "
                "their drugs; resolve identities first (biokg.ingest.build.resolve_identities)"
            )
        progress = progress or (lambda *_: None)
        self._handles = {}
        created = updated = written = 0
        for label, frame in sorted(records.nodes.items()):
            c, u = self._write_nodes(label, frame, release, progress, stub=False)
            created, updated = created + c, updated + u
        for label, frame in sorted(records.stubs.items()):
            c, _ = self._write_nodes(label, frame, release, progress, stub=True)
            created += c
        for rel_type, frame in sorted(records.edges.items()):
            written += self._write_edges(rel_type, frame, release, progress, rewrite=rewrite)
        deleted = self._delete_stale(release)
        self._release_stale_nodes(release, records)
        self._record_release(records, release, identity)
        return LoadResult(
            release.source, release.version, False, created, updated, written, deleted, identity
        )

    # -- nodes -----------------------------------------------------------------------------
    def _write_nodes(
        self, label: str, frame: pl.DataFrame, release: Release, progress: Progress, *, stub: bool
    ) -> tuple[int, int]:
        chooser = Chooser(self.schema, label)  # a schema/ label: it is substituted into Cypher
        created = updated = 0
        what = f"{_short(release.source)} {'stub ' if stub else ''}{label} nodes"
        for done, rows in self._batches(frame):

            def work(tx, rows=rows):
                return write_node_rows(tx, chooser, rows, release, stub=stub)

            c, u = self.store.in_transaction(work)
            created, updated = created + c, updated + u
            progress(what, done, frame.height)
        return created, updated

    # -- edges -----------------------------------------------------------------------------
    def _write_edges(
        self,
        rel_type: str,
        frame: pl.DataFrame,
        release: Release,
        progress: Progress,
        *,
        rewrite: bool,
    ) -> int:
        """CREATE new edges, rewrite edges of earlier loads, skip this load's own (a re-run)
        unless ``rewrite``."""
        self.schema.relationship(rel_type)
        lookup = cypher.load("write_existing_edges").replace("{type}", rel_type)
        existing = {
            row["id"]: row["load_id"] for row in self.store.read(lookup, {"source": release.source})
        }
        known = pl.Series(list(existing), dtype=pl.String)
        mine = pl.Series(
            [k for k, v in existing.items() if v == release.load_id and not rewrite],
            dtype=pl.String,
        )
        frame = frame.filter(~pl.col("id").is_in(mine.implode())).with_columns(
            pl.lit(release.load_id).alias("load_id")
        )
        written = 0
        what = f"{_short(release.source)} {rel_type} edges"

        def advance(done: int) -> None:  # one bar over every part of this type
            progress(what, written + done, frame.height)

        for (subject_label, object_label), part in frame.group_by(
            "subject_label", "object_label", maintain_order=True
        ):
            part = part.drop("subject_label", "object_label")
            new = part.filter(~pl.col("id").is_in(known.implode()))
            updates = [("write_update_edges", part.filter(pl.col("id").is_in(known.implode())))]
            if self.bulk:
                labels = (subject_label, object_label)
                written += self._bulk_edges(rel_type, labels, new, release, advance)
            else:
                updates.insert(0, ("write_create_edges", new))
            for name, rows in updates:
                statement = (
                    cypher.load(name)
                    .replace("{type}", rel_type)
                    .replace("{from}", self._declared_label(subject_label))
                    .replace("{to}", self._declared_label(object_label))
                )
                written += self._edge_batches(statement, rows, rel_type, release, advance)
        return written

    def _declared_label(self, label: str) -> str:
        """``label`` itself, once schema/ confirms it (it is substituted into Cypher)."""
        self.schema.label(label)
        return label

    def _edge_batches(
        self,
        statement: str,
        frame: pl.DataFrame,
        rel_type: str,
        release: Release,
        advance: Callable[[int], None],
    ) -> int:
        written = 0
        for done, rows in self._batches(frame):
            batch = [
                {"subject": row.pop("subject"), "object": row.pop("object"), "props": row}
                for row in rows
            ]

            def work(tx, batch=batch):
                return tx.run(statement, rows=batch).single()["written"]

            count = self.store.in_transaction(work)
            if count != len(batch):
                raise StoreError(
                    f"{release.source}: wrote {count} of {len(batch)} {rel_type} edges in a "
                    "batch; an endpoint node is missing from the graph"
                )
            written += count
            advance(done)
        return written

    def _bulk_edges(
        self,
        rel_type: str,
        labels: tuple[str, str],
        frame: pl.DataFrame,
        release: Release,
        advance: Callable[[int], None],
    ) -> int:
        """CREATE new edges through the engine's batch loader (module docstring)."""
        written = 0
        per_request = self.batch_size * BULK_BATCHES
        for offset in range(0, frame.height, per_request):
            chunk = frame.slice(offset, per_request)
            handles: dict[str, str] = {}
            for column, label in zip(("subject", "object"), labels, strict=True):
                if label not in self._handles:  # nodes are all written before any edge
                    self._handles[label] = self.store.node_handles(self._declared_label(label))
                found = self._handles[label]
                ids = chunk.get_column(column).unique().to_list()
                absent = [i for i in ids if i not in found]
                missing = chunk.filter(pl.col(column).is_in(absent))
                if missing.height:
                    first = missing.row(0, named=True)
                    raise StoreError(
                        f"{release.source}: {rel_type} edge {first['id']} names {label} "
                        f"{first[column]}, which is not in the graph (edges of this batch "
                        f"without an endpoint: {missing.height}); nothing of the batch was written"
                    )
                handles.update((i, found[i]) for i in ids)
            count = self.store.create_edges_bulk(_ndjson(chunk, rel_type, handles))
            if count != chunk.height:
                raise StoreError(
                    f"{release.source}: the batch loader created {count} of {chunk.height} "
                    f"{rel_type} edges"
                )
            written += count
            advance(offset + chunk.height)
        return written

    def _delete_stale(self, release: Release) -> int:
        """Delete this source's edges of other loads, of every type; returns how many."""
        statement = cypher.load("write_delete_stale_edges")
        params = {"source": release.source, "load_id": release.load_id, "limit": STALE_DELETE_BATCH}
        deleted = 0
        while True:
            rows = self.store.write(statement, params)
            batch = rows[0]["deleted"] if rows else 0
            deleted += batch
            if batch < STALE_DELETE_BATCH:
                return deleted

    def _release_stale_nodes(self, release: Release, records: Records) -> int:
        """Take this source's facts of other loads off the nodes it no longer asserts (terms the
        release marks obsolete keep them, flagged as delta loads flag them); returns how many."""
        rows = self.store.read(
            cypher.load("write_stale_nodes"),
            {"source": release.source, "load_id": release.load_id},
            timeout_s=STALE_READ_TIMEOUT_S,
        )
        retired = {
            label: frame.filter(pl.col("id").is_in([r["id"] for r in rows]))
            for label, frame in records.retired.items()
        }
        kept = {i for frame in retired.values() for i in frame["id"].to_list()}
        released = 0
        for label, group in _by_label(r for r in rows if r["id"] not in kept).items():
            chooser = Chooser(self.schema, label)
            for offset in range(0, len(group), self.batch_size):
                ids = group[offset : offset + self.batch_size]
                released += self.store.in_transaction(
                    lambda tx, ids=ids, c=chooser: release_node_facts(tx, c, ids, release.source)
                )
        for label, frame in retired.items():
            if frame.height:
                statement = cypher.load("delta_retire_nodes").replace(
                    "{label}", self._declared_label(label)
                )
                self.store.write(statement, {"rows": frame.to_dicts()})
        return released

    def _record_release(self, records: Records, release: Release, identity: dict | None) -> None:
        self.store.write(
            cypher.load("write_source_version"),
            {
                "id": f"{release.id}#{release.load_id}",
                "source": release.source,
                "props": release_props(records, release, identity),
            },
        )

    def _batches(self, frame: pl.DataFrame) -> Iterator[tuple[int, list[dict]]]:
        return batches(frame, self.batch_size)


def release_props(records: Records, release: Release, identity: dict | None) -> dict:
    """The properties of a complete load's ``:SourceVersion`` record."""
    return {
        "source": release.source,
        "version": release.version,
        "license": release.license,
        "load_id": release.load_id,
        "retrieved_at": release.retrieved_at,
        "loaded_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "checksums": json.dumps(release.checksums, sort_keys=True),
        "code": json.dumps(release.code, sort_keys=True),
        "context": json.dumps(release.context, sort_keys=True),
        "counts": json.dumps(records.counts(), sort_keys=True),
        **({"identity": json.dumps(identity, sort_keys=True)} if identity else {}),
    }


def batches(frame: pl.DataFrame, size: int) -> Iterator[tuple[int, list[dict]]]:
    """(rows done, rows) of ``frame`` in batches of at most ``size`` rows and about
    :data:`BATCH_TEXT_BYTES` of text, as dicts without nulls (a null must not erase what another
    source wrote). The text bound keeps a batch of long label sections under the Bolt message
    limit (16 MiB on the embedded engine, which otherwise drops the connection)."""
    ends = _batch_ends(frame, size)
    start = 0
    for end in ends:
        chunk = frame.slice(start, end - start)
        rows = [{k: v for k, v in row.items() if v is not None} for row in chunk.to_dicts()]
        yield end, rows
        start = end


def _batch_ends(frame: pl.DataFrame, size: int) -> list[int]:
    """Row offsets where batches end: every ``size`` rows, sooner where text adds up."""
    text = [
        pl.col(c).str.len_bytes() if dtype == pl.String else pl.col(c).list.join("").str.len_bytes()
        for c, dtype in frame.schema.items()
        if dtype == pl.String or dtype == pl.List(pl.String)
    ]
    if frame.height == 0:
        return []
    weights = (
        frame.select(pl.sum_horizontal(text).fill_null(0)).to_series().to_list()
        if text
        else [0] * frame.height
    )
    ends, rows, used = [], 0, 0
    for i, weight in enumerate(weights):
        if rows and (rows == size or used + weight > BATCH_TEXT_BYTES):
            ends.append(i)
            rows, used = 0, 0
        rows, used = rows + 1, used + weight
    return [*ends, frame.height]


def write_node_rows(
    tx: neo4j.ManagedTransaction,
    chooser: Chooser,
    rows: list[dict],
    release: Release,
    *,
    stub: bool,
) -> tuple[int, int]:
    """Write one batch of ``chooser.label`` records of ``release`` in ``tx`` as the source's
    facts (:mod:`biokg.ingest.node_facts`); returns (created, existing).

    Raises:
        RecordValidationError: a row would relabel an existing node.
    """
    created, existing, clashes = node_facts.write_node_rows(
        tx, chooser, rows, release.source, release.load_id, stub=stub
    )
    if clashes:
        found = tx.run(cypher.load("write_lookup_nodes"), ids=clashes[:1]).single()
        others = "/".join(sorted(set(found["labels"]) - {"Entity"}))
        raise RecordValidationError(
            f"{release.source}: record {clashes[0]} is a {chooser.label}, but the graph "
            f"already has it as {others}"
        )
    return created, existing


def _ndjson(frame: pl.DataFrame, rel_type: str, handles: dict[str, str]) -> bytes:
    """Edges as the batch loader's NDJSON lines, endpoints as record ids; a null property is
    left out, not written as null (as the Cypher road does: it must not erase another
    source's value)."""
    edges = frame.with_columns(
        pl.lit("edge").alias("@type"),
        pl.lit(rel_type).alias("@class"),
        pl.col("subject").replace_strict(handles).alias("@from"),
        pl.col("object").replace_strict(handles).alias("@to"),
    ).drop("subject", "object")
    props = [c for c in edges.columns if c not in _CONTROL]
    nulls = pl.concat_str([pl.col(c).is_null().cast(pl.UInt8).cast(pl.String) for c in props])
    out = []
    # rows with the same null columns share one column selection, written by polars in bulk
    for _, part in edges.with_columns(nulls.alias("_nulls")).group_by("_nulls"):
        held = [c for c in props if part.get_column(c).null_count() == 0]
        out.append(part.select(*_CONTROL, *held).write_ndjson())
    return "".join(out).encode()


def _by_label(rows: Iterable[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in rows:
        out.setdefault(row["label"], []).append(row["id"])
    return out


def _short(source: str) -> str:
    """``infores:openfda`` → ``openfda``: the bar's name says which source loads."""
    return source.removeprefix("infores:")
