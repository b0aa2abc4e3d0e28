"""Reading the diagnosis index's rows from the graph, cached per graph load.

The rows (terms, IS_A, disease annotations, bridge twins) are read once through the real driver
with the ``cypher/diagnosis_*.cypher`` templates and kept as Parquet files in the graph home's
cache folder, in a folder named for the current load of every source (a build or refresh that
changes any source makes a new key; stale folders are removed). The index built from them is
also kept in memory for the life of the process (API, MCP server).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
from pathlib import Path

import polars as pl

from biokg import cypher
from biokg.core.store import GraphStore
from biokg.errors import EntityNotFoundError
from biokg.graph_agent.diagnosis.index import PhenotypeIndex, build_index
from biokg.schema import load_schema

log = logging.getLogger(__name__)

#: template name → the columns it returns (an empty result still gets its schema)
TABLES = {
    "diagnosis_terms": {"id": pl.String, "name": pl.String},
    "diagnosis_hierarchy": {"child": pl.String, "parent": pl.String},
    "diagnosis_annotations": {
        "disease": pl.String,
        "name": pl.String,
        "term": pl.String,
        "frequency": pl.String,
        "negated": pl.Boolean,
        "edge": pl.String,
        "source": pl.String,
        "source_record": pl.String,
        "references": pl.List(pl.String),
    },
    "diagnosis_twins": {
        "subject": pl.String,
        "object": pl.String,
        "edge": pl.String,
        "source_record": pl.String,
    },
    "diagnosis_genes": {
        "disease": pl.String,
        "gene": pl.String,
        "symbol": pl.String,
        "edge": pl.String,
        "source": pl.String,
        "source_record": pl.String,
    },
}
_LOADED: dict[str, PhenotypeIndex] = {}
#: one build at a time: concurrent API requests after a refresh wait for the same index
_BUILDING = threading.Lock()


#: Bumped when the cached rows' columns change, so rows of an older layout are read again
#: (4: the annotations' ``references``, for leave-publication-out ranking; 5: the diseases'
#: genes).
ROWS_FORMAT = 5


def load_key(store: GraphStore) -> str:
    """A short key for the graph's current loads (every source's current load id)."""
    rows = store.read(cypher.load("build_current_loads"))
    text = "\n".join(
        [f"rows={ROWS_FORMAT}", *sorted(f"{r['source']}={r['load_id']}" for r in rows)]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def phenotype_index(store: GraphStore, cache_dir: Path | None) -> PhenotypeIndex:
    """The index of the graph's current load: from memory, else from the cached rows, else
    read from the graph (and cached under ``cache_dir``; ``None``: kept in memory only).

    Raises:
        StoreError: the graph could not be read.
        EntityNotFoundError: the graph holds no HPO term (HPO is not built).
    """
    key = load_key(store)
    with _BUILDING:
        if key not in _LOADED:
            _LOADED.clear()
            folder = None if cache_dir is None else cache_dir / "diagnosis" / key
            rows = _read(store) if folder is None else _rows(store, folder)
            if rows["diagnosis_terms"].is_empty():
                raise EntityNotFoundError(
                    "the graph holds no HPO terms to rank diseases by: build HPO first "
                    "(biokg build --sources hpo)"
                )
            _LOADED[key] = build_index(*rows.values())
            _LOADED[key].folder = folder
        return _LOADED[key]


def index_loaded() -> bool:
    """Whether this process holds an index (of some load: a rebuild after a refresh reads
    the new load's rows, from the Parquet cache when another process wrote it)."""
    return bool(_LOADED)


def _read(store: GraphStore) -> dict[str, pl.DataFrame]:
    """Every table's rows, read from the graph; the annotations sorted, so that both roads
    (Cypher, the embedded engine's SQL scan) give the same index."""
    frames = {}
    for name, schema in TABLES.items():
        if name == "diagnosis_annotations" and store.http_api:
            rows = _scanned_annotations(store)
        else:
            params = {"source": _ontology_source()} if name == "diagnosis_hierarchy" else {}
            rows = store.read(cypher.load(name), params)
        frames[name] = pl.DataFrame(rows, schema=schema)
    annotations = frames["diagnosis_annotations"]
    frames["diagnosis_annotations"] = annotations.sort("disease", "term", "edge")
    frames["diagnosis_genes"] = frames["diagnosis_genes"].sort("disease", "gene", "edge")
    return frames


def _ontology_source() -> str:
    """The source whose IS_A edges are the phenotype hierarchy: the first of schema/'s
    precedence for Phenotype (HPO's own load of hp.obo)."""
    return load_schema().precedence.order("Phenotype")[0]


def _scanned_annotations(store: GraphStore) -> list[dict]:
    """``cypher/diagnosis_annotations.cypher``'s rows read with the embedded engine's paged SQL
    (:meth:`GraphStore.scan_edges`): the disease and phenotype ends by record id. Over Bolt
    the 264k annotations of the full HPO release take 12 s, here about a third of that."""
    diseases = {row["rid"]: row for row in store.scan_nodes("Disease", ["id", "name"])}
    phenotypes = {row["rid"]: row["id"] for row in store.scan_nodes("Phenotype", ["id"])}
    columns = ["id", "frequency", "negated", "source", "source_record", "references"]
    return [
        {
            "disease": disease["id"],
            "name": disease["name"],
            "term": phenotypes[edge["in"]],
            "frequency": edge["frequency"],
            "negated": edge["negated"],
            "edge": edge["id"],
            "source": edge["source"],
            "source_record": edge["source_record"],
            "references": edge["references"],
        }
        for edge in store.scan_edges("HAS_PHENOTYPE", columns)
        if (disease := diseases.get(edge["out"])) and edge["in"] in phenotypes
    ]


def _rows(store: GraphStore, here: Path) -> dict[str, pl.DataFrame]:
    """The rows kept in ``here`` (a folder named for the load), else read and kept there (the
    other loads' folders beside it removed)."""
    folder, key = here.parent, here.name
    if all((here / f"{name}.parquet").is_file() for name in TABLES):
        return {name: pl.read_parquet(here / f"{name}.parquet") for name in TABLES}
    frames = _read(store)
    if folder.is_dir():
        for stale in folder.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
    partial = folder / f".{key}.partial"
    partial.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        frame.write_parquet(partial / f"{name}.parquet")
    partial.rename(here)
    log.info("diagnosis index rows cached in %s", here)
    return frames
