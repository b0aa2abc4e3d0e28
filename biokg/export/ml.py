"""``biokg export ml``: the graph as integer-indexed parquet tables for graph learning, with
link-prediction splits that leak nothing.

Writes into ``--out``:

* ``nodes.parquet``: ``node_idx`` (0..n-1, the id map), ``id``, ``label``, ``name``,
  ``embedding`` (the node's stored text embedding, 384 floats, null where ``biokg embed`` has
  not made one), ``twin_cluster`` and ``leak_group``. Twins stay apart as nodes: a node's
  ``twin_cluster`` is the smallest ``node_idx`` of its bridged set (``SAME_AS`` edges but a
  PrimeKG group's ``grouped`` ones); ``leak_group`` also joins a group with its members.
* ``edges.parquet``: ``edge_idx``, ``src``, ``dst`` (node indexes), ``type``, ``rel_idx``,
  ``source`` (infores), ``id`` (the edge's own id), ``target`` (a drug-disease edge of
  :data:`TARGET_TYPES`, what the split holds out) and ``split``: ``train``, ``valid``,
  ``test`` or ``leak``. A ``leak`` edge is any edge, of any type and in either direction,
  between the leak groups of a held-out drug-disease pair that is not itself held out: the
  pair's mirror, its twin's copy, its group's copy, another source's copy. Train on
  ``split == "train"``.
* ``metadata.json``: counts per label, type and split, the split's settings, the embedding
  model, and each source's release.
* ``hetero_data.pt``, when PyTorch Geometric is installed: a ``HeteroData`` with each label's
  embeddings as ``x`` and each (label, type, label) edge set with its ``split`` codes.

Splits (docs/decisions/0023-ml-export.md): ``disease`` holds out whole diseases (TxGNN's
disease-centric split: every drug-disease edge of a held-out leak group), ``random`` holds out
drug-disease pairs at random (a pair of leak groups at a time, so twins go together).

Rows are streamed: nodes one label per query and edges one type per query into parquet parts,
then joined and written by polars' streaming engine; only the id → index map (one string and
one int per node) and the bridge edges are held in memory.
"""

from __future__ import annotations

import importlib.util
import json
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl

from biokg import cypher
from biokg.core.files import atomic_path
from biokg.core.store import GraphStore
from biokg.core.streams import chunks, read_ahead
from biokg.errors import AgentInputError
from biokg.export import reader
from biokg.export.report import WriteReport
from biokg.schema import GraphSchema

SplitKind = Literal["disease", "random"]
SPLITS = ("disease", "random")
#: Drug -> Disease relationship types a split holds out (TxGNN's indication, contraindication
#: and off-label use).
TARGET_TYPES = ("INDICATED_FOR", "CONTRAINDICATED_FOR", "OFF_LABEL_USE_FOR")
EMBEDDING_DIMENSIONS = 384
BATCH_ROWS = 50_000
NODE_SCHEMA = {
    "node_idx": pl.Int64,
    "id": pl.String,
    "label": pl.String,
    "name": pl.String,
    "embedding": pl.Array(pl.Float32, EMBEDDING_DIMENSIONS),
}
EDGE_SCHEMA = {
    "edge_idx": pl.Int64,
    "src": pl.Int64,
    "dst": pl.Int64,
    "type": pl.String,
    "source": pl.String,
    "id": pl.String,
}


@dataclass
class MlReport(WriteReport):
    """What an ML export wrote, and how long it took."""

    embedded: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    splits: Counter[str] = field(default_factory=Counter)
    held_out_diseases: int = 0
    hetero_data: bool = False


def export_ml(
    store: GraphStore,
    schema: GraphSchema,
    out_dir: Path,
    *,
    split: SplitKind = "disease",
    test_fraction: float = 0.1,
    valid_fraction: float = 0.1,
    seed: int = 0,
) -> MlReport:
    """Write the ML tables (module docstring) into ``out_dir``, each file whole or not at all.

    Raises:
        AgentInputError: an unknown split, or fractions outside (0, 1) that sum to 1 or more.
        SchemaError: the graph holds a label schema/ does not declare.
        StoreError: the engine refused a read.
    """
    if split not in SPLITS:
        raise AgentInputError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    if not (
        0 < test_fraction < 1 and 0 <= valid_fraction < 1 and test_fraction + valid_fraction < 1
    ):
        raise AgentInputError(
            f"--test {test_fraction} and --valid {valid_fraction}: each between 0 and 1, "
            "summing to less than 1"
        )
    started, report = time.perf_counter(), MlReport()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".ml-parts-") as scratch:
        parts = Path(scratch)
        index, handles = _write_node_parts(store, schema, parts / "nodes", report)
        twins, groups = _clusters(store, index)
        _write_edge_parts(store, index, handles, parts / "edges", report)
        clusters = pl.DataFrame(
            {"node_idx": np.arange(len(index)), "twin_cluster": twins, "leak_group": groups}
        )
        with atomic_path(out_dir / "nodes.parquet") as partial:
            nodes = pl.scan_parquet(str(parts / "nodes" / "*.parquet")).join(
                clusters.lazy(), on="node_idx"
            )
            nodes.sort("node_idx").sink_parquet(partial)
        edges = _split(
            pl.scan_parquet(str(parts / "edges" / "*.parquet")),
            clusters.lazy(),
            nodes.select("node_idx", "label"),
            kind=split,
            fractions=(test_fraction, valid_fraction),
            seed=seed,
            report=report,
        )
        with atomic_path(out_dir / "edges.parquet") as partial:
            edges.sort("edge_idx").sink_parquet(partial)
    report.hetero_data = _write_hetero_data(out_dir) if has_pyg() else False
    settings = {"split": split, "test": test_fraction, "valid": valid_fraction, "seed": seed}
    _write_metadata(out_dir / "metadata.json", report, settings, reader.releases(store))
    report.seconds = time.perf_counter() - started
    return report


def _write_node_parts(
    store: GraphStore, schema: GraphSchema, folder: Path, report: MlReport
) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes one label per query, in parquet parts; the id → ``node_idx`` map, and the element
    id → ``node_idx`` map when edges are read with their ends as element ids
    (:meth:`GraphStore.scan_edges`; empty otherwise)."""
    folder.mkdir()
    index: dict[str, int] = {}
    handles: dict[str, int] = {}
    by_handle = store.http_api  # the edges will be read with ends as element ids
    for label in sorted(schema.labels):  # declared labels, so safe to name in Cypher
        query = cypher.load("ml_nodes").replace("{label}", label)
        for batch in chunks(store.stream(query), BATCH_ROWS):
            start = len(index)
            for offset, row in enumerate(batch):
                index[row["id"]] = start + offset
                if by_handle:
                    handles[row["handle"]] = start + offset
            frame = pl.DataFrame(
                {
                    "node_idx": range(start, start + len(batch)),
                    "id": [r["id"] for r in batch],
                    "label": [label] * len(batch),
                    "name": [r["name"] for r in batch],
                    "embedding": [_vector(r["embedding"]) for r in batch],
                },
                schema=NODE_SCHEMA,
            )
            frame.write_parquet(folder / f"{start:012d}.parquet")
            report.labels[label] += len(batch)
            report.embedded += len(batch) - frame["embedding"].null_count()
    report.nodes = len(index)
    return index, handles


def _vector(value: list[float] | None) -> list[float] | None:
    """A stored embedding, or None where there is none (or one of another size)."""
    return value if value is not None and len(value) == EMBEDDING_DIMENSIONS else None


def _clusters(store: GraphStore, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each node's twin cluster and leak group (the smallest ``node_idx`` of its set), by
    union-find over the ``SAME_AS`` edges (the group's ``grouped`` ones only for the latter)."""
    twins, groups = np.arange(len(index)), np.arange(len(index))
    query = cypher.load("ml_edges").replace("-[r]->", "-[r:SAME_AS]->", 1)
    rows = store.stream(query, {"sources": None})
    for row in rows:
        a, b = index[row["subject"]], index[row["object"]]
        _union(groups, a, b)
        if not row["grouped"]:
            _union(twins, a, b)
    return _roots(twins), _roots(groups)


def _union(parent: np.ndarray, a: int, b: int) -> None:
    ra, rb = _find(parent, a), _find(parent, b)
    parent[max(ra, rb)] = min(ra, rb)


def _find(parent: np.ndarray, node: int) -> int:
    while parent[node] != node:
        parent[node] = parent[parent[node]]
        node = parent[node]
    return int(node)


def _roots(parent: np.ndarray) -> np.ndarray:
    return np.fromiter((_find(parent, i) for i in range(len(parent))), np.int64, len(parent))


def _write_edge_parts(
    store: GraphStore,
    index: dict[str, int],
    handles: dict[str, int],
    folder: Path,
    report: MlReport,
) -> None:
    """Edges one type per query (read ahead by a worker thread), in parquet parts: over the
    driver, or on the embedded engine with its own SQL (:func:`biokg.export.reader.scanned_edges`:
    4-6 times the rows per second of Cypher over Bolt)."""
    folder.mkdir()
    if store.http_api:
        rows, ends = read_ahead(reader.scanned_edges(store)), handles
    else:
        rows, ends = read_ahead(reader.edges_by_type(store, None, query="ml_edges")), index
    for batch in chunks(rows, BATCH_ROWS):
        start = report.edges
        frame = pl.DataFrame(
            {
                "edge_idx": range(start, start + len(batch)),
                "src": [ends[r["subject"]] for r in batch],
                "dst": [ends[r["object"]] for r in batch],
                "type": [r["type"] for r in batch],
                "source": [r["source"] for r in batch],
                "id": [r["id"] for r in batch],
            },
            schema=EDGE_SCHEMA,
        )
        frame.write_parquet(folder / f"{start:012d}.parquet")
        report.edges += len(batch)
        report.types.update(frame["type"].to_list())


def _split(
    edges: pl.LazyFrame,
    clusters: pl.LazyFrame,
    labels: pl.LazyFrame,
    *,
    kind: SplitKind,
    fractions: tuple[float, float],
    seed: int,
    report: MlReport,
) -> pl.LazyFrame:
    """``edges`` with ``rel_idx``, ``target`` and ``split`` (module docstring)."""
    group = clusters.select("node_idx", "leak_group")
    ends = (
        edges.join(group.rename({"node_idx": "src", "leak_group": "src_group"}), on="src")
        .join(group.rename({"node_idx": "dst", "leak_group": "dst_group"}), on="dst")
        .join(labels.rename({"node_idx": "src", "label": "src_label"}), on="src")
        .join(labels.rename({"node_idx": "dst", "label": "dst_label"}), on="dst")
    )
    target = (
        pl.col("type").is_in(TARGET_TYPES)
        & (pl.col("src_label") == "Drug")
        & (pl.col("dst_label") == "Disease")
    )
    ends = ends.with_columns(target=target)
    pairs = ends.filter("target").select("src_group", "dst_group").unique().collect()
    held = _held_out(pairs, kind=kind, fractions=fractions, seed=seed)
    report.held_out_diseases = held.filter(pl.col("split") == "test")["dst_group"].n_unique()
    # a held-out pair matches an edge between its two groups in either direction
    both = pl.concat(
        [held, held.select(src_group="dst_group", dst_group="src_group", split="split")]
    )
    both = both.unique(["src_group", "dst_group"], keep="first")
    types = sorted(report.types)
    out = ends.join(both.lazy(), on=["src_group", "dst_group"], how="left").with_columns(
        split=pl.when(pl.col("split").is_null())
        .then(pl.lit("train"))
        .when(pl.col("target"))
        .then(pl.col("split"))
        .otherwise(pl.lit("leak")),
        rel_idx=pl.col("type").replace_strict(
            types, list(range(len(types))), return_dtype=pl.Int32
        ),
    )
    columns = ["edge_idx", "src", "dst", "type", "rel_idx", "source", "id", "target", "split"]
    counted = out.group_by("split").len().collect()
    report.splits.update(dict(zip(counted["split"], counted["len"], strict=True)))
    return out.select(columns)


def _held_out(
    pairs: pl.DataFrame, *, kind: SplitKind, fractions: tuple[float, float], seed: int
) -> pl.DataFrame:
    """Which drug-disease group pairs are ``test`` or ``valid``: whole diseases (``disease``)
    or pairs (``random``), shuffled with ``seed``; the rest are trained on (not listed)."""
    unit = ["dst_group"] if kind == "disease" else ["src_group", "dst_group"]
    units = pairs.select(unit).unique().sort(unit)
    order = np.random.default_rng(seed).permutation(units.height)
    n_test = max(1, round(units.height * fractions[0])) if units.height else 0
    n_valid = round(units.height * fractions[1])
    chosen = np.full(units.height, "train", dtype=object)
    chosen[order[:n_test]] = "test"
    chosen[order[n_test : n_test + n_valid]] = "valid"
    units = units.with_columns(split=pl.Series(chosen.tolist(), dtype=pl.String))
    held = pairs.join(units, on=unit).filter(pl.col("split") != "train")
    return held.select("src_group", "dst_group", "split")


def has_pyg() -> bool:
    """Whether PyTorch Geometric can be imported (then a ``HeteroData`` file is written)."""
    return importlib.util.find_spec("torch_geometric") is not None


SPLIT_CODES = {"train": 0, "valid": 1, "test": 2, "leak": 3}


def _write_hetero_data(out_dir: Path) -> bool:
    """``hetero_data.pt``: per label its nodes' ``node_idx`` and embeddings (zeros where none,
    with ``has_x``), per (label, type, label) its ``edge_index`` in the labels' own numbering,
    ``edge_idx`` and ``split`` codes (:data:`SPLIT_CODES`)."""
    import torch
    from torch_geometric.data import HeteroData

    nodes = pl.read_parquet(out_dir / "nodes.parquet", columns=["node_idx", "label", "embedding"])
    nodes = nodes.with_columns(local=pl.int_range(pl.len()).over("label"))
    data = HeteroData()
    for (label,), part in nodes.group_by("label", maintain_order=True):
        data[label].node_idx = torch.tensor(part["node_idx"].to_numpy())
        embedding = part["embedding"]
        has_x = embedding.is_not_null().to_numpy()
        x = np.zeros((part.height, EMBEDDING_DIMENSIONS), dtype=np.float32)
        if has_x.any():
            x[has_x] = embedding.drop_nulls().to_numpy()
        data[label].x, data[label].has_x = torch.from_numpy(x), torch.tensor(has_x)
    local = nodes.select("node_idx", "label", "local")
    edges = (
        pl.scan_parquet(out_dir / "edges.parquet")
        .join(local.lazy().rename({"node_idx": "src", "label": "sl", "local": "s"}), on="src")
        .join(local.lazy().rename({"node_idx": "dst", "label": "dl", "local": "d"}), on="dst")
        .collect()
    )
    for (src, rel, dst), part in edges.group_by("sl", "type", "dl", maintain_order=True):
        store = data[str(src), str(rel), str(dst)]
        store.edge_index = torch.tensor(part.select("s", "d").to_numpy().T)
        store.edge_idx = torch.tensor(part["edge_idx"].to_numpy())
        codes = part["split"].replace_strict(SPLIT_CODES, return_dtype=pl.Int8)
        store.split = torch.tensor(codes.to_numpy())
    with atomic_path(out_dir / "hetero_data.pt") as partial:
        torch.save(data, partial)
    return True


def _write_metadata(
    path: Path,
    report: MlReport,
    settings: dict[str, Any],
    loads: dict[tuple[str, str], dict[str, Any]],
) -> None:
    metadata = {
        "node_count": report.nodes,
        "edge_count": report.edges,
        "embedded_nodes": report.embedded,
        "embedding_dimensions": EMBEDDING_DIMENSIONS,
        "node_count_by_label": dict(sorted(report.labels.items())),
        "edge_count_by_type": dict(sorted(report.types.items())),
        "target_types": list(TARGET_TYPES),
        "split": settings,
        "edge_count_by_split": dict(sorted(report.splits.items())),
        "held_out_diseases": report.held_out_diseases,
        "hetero_data": report.hetero_data,
        "sources": [
            {k: row[k] for k in ("source", "version", "license", "retrieved_at")}
            for _, row in sorted(loads.items())
        ],
    }
    with atomic_path(path) as partial:
        partial.write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
