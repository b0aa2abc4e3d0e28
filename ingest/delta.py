"""Delta loads: write only what changed between a source's current load and its new records.

The baseline is the current load's own records, kept as a *snapshot* (parquet, one file per
label and type) under ``$BIOKG_HOME/cache/loads/<source>/<load id>/`` by every load that
completes. Nodes and edges are matched by id and compared by content: every property except
the locators of the release they were read from (``source_version``, ``retrieved_at``,
``source_record``, ``load_id``), so an assertion that only moved to another line of a new release
is left as it was, its citation still naming the line of the release it names. The delta is
written in **one transaction**, the new ``:SourceVersion`` with it: a reader sees the source's
edges all before or all after, never a mix. Without a snapshot of the current load (a graph
built elsewhere, a cache wiped) there is no baseline, and the caller loads the source whole.

What a delta writes:

* nodes the source newly defines or whose properties changed, as its facts
  (:mod:`biokg.ingest.node_facts`: a property it no longer states loses its value, another
  source's value shows if one states it); stubs it newly references, or whose values (the
  bridge's MONDO synonyms) changed;
* its edges added (CREATE) or changed (rewritten with the new provenance); edges gone upstream
  deleted by id; other sources' edges are never read or written;
* nodes it no longer asserts lose its facts (and its name from ``sources``). An ontology term
  the release marks obsolete stays, with ``obsolete: true`` and OBO's ``replaced_by`` /
  ``consider``, so old ids remain findable; any other node that no source asserts any more
  and that has no edge left is deleted (docs/decisions/0015-refresh.md).
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import neo4j
import polars as pl

from biokg import cypher
from biokg.core.files import atomic_path, space_for
from biokg.core.store import GraphStore
from biokg.errors import StoreError
from biokg.ingest.node_facts import Chooser, release_node_facts
from biokg.ingest.records import Records, Release
from biokg.ingest.writer import batches, write_node_rows
from biokg.schema import GraphSchema

log = logging.getLogger(__name__)

#: Edge properties that locate an assertion in one release rather than state it.
LOCATORS = ("source_version", "retrieved_at", "source_record", "load_id")
#: Rows per statement inside the delta's one transaction.
STATEMENT_ROWS = 5_000
_KINDS = ("nodes", "stubs", "edges")


@dataclass(frozen=True)
class Change:
    """One label's or type's difference: new rows added or changed, old rows removed."""

    added: pl.DataFrame
    changed: pl.DataFrame
    removed: pl.DataFrame


@dataclass
class Delta:
    """What a new load changes against the current one, per label and type."""

    nodes: dict[str, Change] = field(default_factory=dict)
    stubs: dict[str, Change] = field(default_factory=dict)
    edges: dict[str, Change] = field(default_factory=dict)
    #: per label, ids the source no longer asserts (neither defines nor references)
    released: dict[str, list[str]] = field(default_factory=dict)
    #: per label, the source's obsolete terms (id, replaced_by, consider)
    retired: dict[str, pl.DataFrame] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """nodes/edges added, changed and removed (stubs count as nodes), nodes obsoleted."""
        nodes = [*self.nodes.values(), *self.stubs.values()]
        edges = list(self.edges.values())
        return {
            "nodes_added": sum(c.added.height for c in nodes),
            "nodes_changed": sum(c.changed.height for c in nodes),
            "nodes_removed": sum(len(ids) for ids in self.released.values()),
            "edges_added": sum(c.added.height for c in edges),
            "edges_changed": sum(c.changed.height for c in edges),
            "edges_removed": sum(c.removed.height for c in edges),
            "nodes_obsoleted": sum(f.height for f in self.retired.values()),
        }


# -- snapshots ------------------------------------------------------------------------------
def snapshot_dir(cache_dir: Path, source: str, load_id: str) -> Path:
    return Path(cache_dir) / "loads" / source.removeprefix("infores:") / load_id


def save_snapshot(cache_dir: Path, release: Release, records: Records) -> None:
    """Keep a complete load's records as the baseline of the next delta (older ones removed).

    Raises:
        DiskFullError: its disk is full (the partial snapshot is removed).
    """
    target = snapshot_dir(cache_dir, release.source, release.load_id)
    doing = (
        f"the snapshot of {release.source}'s load was not written (the load itself is in the "
        "graph; the snapshot is what the next refresh compares with)"
    )
    remedy = (
        "free space there, then run the command again (a build then skips the source, and "
        "its next refresh loads it whole instead of as a delta)"
    )
    with space_for(target.parent, doing, remedy), atomic_path(target) as folder:
        folder.mkdir(parents=True)
        for kind in _KINDS:
            for name, frame in getattr(records, kind).items():
                frame.write_parquet(folder / f"{kind}-{name}.parquet")
    for other in target.parent.iterdir():
        if other != target and ".part" not in other.name:
            shutil.rmtree(other, ignore_errors=True)


def load_snapshot(cache_dir: Path, source: str, load_id: str) -> Records | None:
    """The records of the load ``load_id`` of ``source``; None when no snapshot was kept."""
    folder = snapshot_dir(cache_dir, source, load_id)
    if not folder.is_dir():
        return None
    records = Records()
    for path in sorted(folder.glob("*.parquet")):
        kind, _, name = path.stem.partition("-")
        getattr(records, kind)[name] = pl.read_parquet(path)
    return records


# -- diff -----------------------------------------------------------------------------------
def diff(old: Records, new: Records) -> Delta:
    """The difference between two loads' records of one source (module docstring)."""
    delta = Delta()
    for label in sorted(set(old.nodes) | set(new.nodes)):
        delta.nodes[label] = _diff_frames(old.nodes.get(label), new.nodes.get(label), ())
    for label in sorted(set(old.stubs) | set(new.stubs)):
        delta.stubs[label] = _diff_frames(old.stubs.get(label), new.stubs.get(label), ())
    for rel_type in sorted(set(old.edges) | set(new.edges)):
        delta.edges[rel_type] = _diff_frames(
            old.edges.get(rel_type), new.edges.get(rel_type), LOCATORS
        )
    for label in sorted({*old.nodes, *old.stubs}):
        before = _ids(old.nodes.get(label)) | _ids(old.stubs.get(label))
        gone = before - _ids(new.nodes.get(label)) - _ids(new.stubs.get(label))
        retired = new.retired.get(label)
        if retired is not None:  # terms that became obsolete: flagged, not released
            retired = retired.filter(pl.col("id").is_in(list(gone)))
            gone -= _ids(retired)
            if retired.height:
                delta.retired[label] = retired
        if gone:
            delta.released[label] = sorted(gone)
    return delta


def _ids(frame: pl.DataFrame | None) -> set[str]:
    return set() if frame is None else set(frame["id"].to_list())


def _diff_frames(
    old: pl.DataFrame | None, new: pl.DataFrame | None, ignore: tuple[str, ...]
) -> Change:
    old = _or_empty(old, new)
    new = _or_empty(new, old)
    columns = sorted((set(old.columns) | set(new.columns)) - set(ignore))
    dtypes = {**old.schema, **new.schema}
    old_hash, new_hash = (_hashed(f, columns, dtypes) for f in (old, new))
    both = new_hash.join(old_hash, on="id", suffix="_old")
    changed_ids = both.filter(pl.col("hash") != pl.col("hash_old")).select("id")
    return Change(
        added=new.join(old.select("id"), on="id", how="anti"),
        changed=new.join(changed_ids, on="id", how="semi"),
        removed=old.join(new.select("id"), on="id", how="anti"),
    )


def _or_empty(frame: pl.DataFrame | None, other: pl.DataFrame | None) -> pl.DataFrame:
    if frame is not None:
        return frame
    return other.clear() if other is not None else pl.DataFrame({"id": []}, {"id": pl.String})


def _hashed(frame: pl.DataFrame, columns: list[str], dtypes: dict) -> pl.DataFrame:
    """id and a hash of ``columns`` (absent ones as nulls: the writer skips nulls anyway)."""
    full = frame.with_columns(
        pl.lit(None, dtype=dtypes[c]).alias(c) for c in columns if c not in frame.columns
    ).select(columns)
    return frame.select("id").with_columns(full.hash_rows(seed=15).alias("hash"))


# -- apply ----------------------------------------------------------------------------------
def apply_delta(
    store: GraphStore,
    schema: GraphSchema,
    delta: Delta,
    release: Release,
    version_props: dict,
) -> None:
    """Write ``delta`` and make ``release`` the source's current load, in one transaction.

    ``version_props`` are the new ``:SourceVersion``'s properties (as the writer records them).

    Raises:
        StoreError: the store refused a statement, or an added edge lost an endpoint (nothing
            of the delta is then written).
    """
    source = release.source

    def work(tx: neo4j.ManagedTransaction) -> None:
        for rel_type, change in sorted(delta.edges.items()):
            _delete_edges(tx, schema, rel_type, change.removed, source)
        for label, change in sorted(delta.nodes.items()):
            frame = pl.concat([change.added, change.changed], how="diagonal_relaxed")
            _write_nodes(tx, schema, label, frame, release, stub=False)
        for label, change in sorted(delta.stubs.items()):
            frame = pl.concat([change.added, change.changed], how="diagonal_relaxed")
            _write_nodes(tx, schema, label, frame, release, stub=True)
        for rel_type, change in sorted(delta.edges.items()):
            rows = change.added.with_columns(pl.lit(release.load_id).alias("load_id"))
            _write_edges(tx, schema, rel_type, rows, "write_create_edges", source)
            rows = change.changed.with_columns(pl.lit(release.load_id).alias("load_id"))
            _write_edges(tx, schema, rel_type, rows, "write_update_edges", source)
        for label, frame in sorted(delta.retired.items()):
            statement = cypher.load("delta_retire_nodes").replace(
                "{label}", _declared(schema, label)
            )
            tx.run(statement, rows=frame.to_dicts()).consume()
        for label, ids in sorted(delta.released.items()):
            release_node_facts(tx, Chooser(schema, label), ids, source)
        tx.run(
            cypher.load("write_source_version"),
            id=f"{release.id}#{release.load_id}",
            source=source,
            props=version_props,
        ).consume()

    store.in_transaction(work)


def _declared(schema: GraphSchema, label: str) -> str:
    """``label`` once schema/ declares it (it is substituted into Cypher)."""
    schema.label(label)
    return label


def _write_nodes(
    tx: neo4j.ManagedTransaction,
    schema: GraphSchema,
    label: str,
    frame: pl.DataFrame,
    release: Release,
    *,
    stub: bool,
) -> None:
    chooser = Chooser(schema, label)
    for _, rows in batches(frame, STATEMENT_ROWS):
        write_node_rows(tx, chooser, rows, release, stub=stub)


def _write_edges(
    tx: neo4j.ManagedTransaction,
    schema: GraphSchema,
    rel_type: str,
    frame: pl.DataFrame,
    statement_name: str,
    source: str,
) -> None:
    schema.relationship(rel_type)
    for (subject_label, object_label), part in frame.group_by(
        "subject_label", "object_label", maintain_order=True
    ):
        statement = (
            cypher.load(statement_name)
            .replace("{type}", rel_type)
            .replace("{from}", _declared(schema, subject_label))
            .replace("{to}", _declared(schema, object_label))
        )
        for _, rows in batches(part.drop("subject_label", "object_label"), STATEMENT_ROWS):
            batch = [
                {"subject": row.pop("subject"), "object": row.pop("object"), "props": row}
                for row in rows
            ]
            written = tx.run(statement, rows=batch).single()["written"]
            if written != len(batch):
                raise StoreError(
                    f"{source}: wrote {written} of {len(batch)} {rel_type} edges of a delta; an "
                    "endpoint node is missing from the graph (nothing of the delta was written)"
                )


def _delete_edges(
    tx: neo4j.ManagedTransaction,
    schema: GraphSchema,
    rel_type: str,
    removed: pl.DataFrame,
    source: str,
) -> None:
    schema.relationship(rel_type)
    for (subject_label,), part in removed.group_by("subject_label", maintain_order=True):
        statement = (
            cypher.load("delta_delete_edges")
            .replace("{type}", rel_type)
            .replace("{from}", _declared(schema, subject_label))
        )
        rows = part.select("id", "subject").to_dicts()
        for offset in range(0, len(rows), STATEMENT_ROWS):
            chunk = rows[offset : offset + STATEMENT_ROWS]
            tx.run(statement, rows=chunk, source=source).consume()
