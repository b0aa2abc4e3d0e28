"""``biokg export``: files for other tools, built from the same records a build writes."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import polars as pl
import typer

from biokg.cli import console, handle_errors
from biokg.core.settings import Settings
from biokg.errors import AgentInputError
from biokg.export.neo4j_admin import merge_records, write_neo4j_admin_csv
from biokg.ingest.build import (
    DEFAULT_SOURCES,
    build_order,
    fetch_source,
    prepare_records,
    resolve_identities,
)
from biokg.ingest.identity import KNOWN_DRUG_SCHEMA
from biokg.ingest.sources import SOURCES
from biokg.schema import load_schema

app = typer.Typer(help="Export the graph for other tools.", no_args_is_help=True)


def source_ids(names: Iterable[str]) -> list[str]:
    """Infores ids of the named sources (``chembl`` or ``infores:chembl`` alike), from the source
    registry: the exports take infores ids, and never import the source modules themselves.

    Raises:
        AgentInputError: a name is no registered source.
    """
    by_name = {name: module.SOURCE.infores for name, module in SOURCES.items()}
    known = set(by_name.values())
    out = []
    for name in names:
        infores = by_name.get(name, name if name in known else None)
        if infores is None:
            raise AgentInputError(
                f"unknown source {name!r}; known: {', '.join(sorted(by_name))} "
                f"(or their infores ids: {', '.join(sorted(known))})"
            )
        out.append(infores)
    return out


@app.command("neo4j-admin")
@handle_errors
def neo4j_admin(
    out_dir: Path = typer.Option(Path("neo4j-import"), "--out-dir", help="Folder for the CSVs."),
    sources: str = typer.Option(",".join(DEFAULT_SOURCES), "--sources", "-s"),
    data_dir: Path | None = typer.Option(None, "--data-dir"),
    sample: bool = typer.Option(False, "--sample"),
) -> None:
    """CSVs for `neo4j-admin database import full`, and the command that imports them."""
    settings = Settings.from_env()
    names = build_order(s.strip() for s in sources.split(",") if s.strip())
    prepared = []
    for name in names:
        planned = fetch_source(name, settings, data_dir=data_dir)
        prepared.append((planned, prepare_records(planned, sample=sample)))
    resolved = resolve_identities(prepared, pl.DataFrame(schema=KNOWN_DRUG_SCHEMA))
    loads = [records for _, records, _ in resolved]
    command = write_neo4j_admin_csv(merge_records(loads), load_schema(), out_dir)
    console.print(f"wrote CSVs to {out_dir}; import with:\n{command}", soft_wrap=True)
    console.print(
        "then create constraints and indexes: cypher/constraints.cypher, cypher/indexes.cypher"
    )


@app.command("rdf")
@handle_errors
def rdf(
    out: Path = typer.Option(..., "--out", "-o", help="File to write (.nq or .trig)."),
    fmt: str = typer.Option("nquads", "--format", "-f", help="nquads or trig."),
    seed: str | None = typer.Option(None, "--seed", help="Only this CURIE's neighbourhood."),
    hops: int = typer.Option(1, "--hops", help="Hops around --seed (0-3)."),
    sources: str | None = typer.Option(
        None, "--sources", "-s", help="Only these sources' edges (comma-separated)."
    ),
) -> None:
    """The graph as RDF: Biolink classes and predicates, one named graph per source release
    (PROV-O), each edge's provenance on its reified statement."""
    from biokg.core.store import GraphStore
    from biokg.export.rdf import export_file

    wanted = source_ids(s.strip() for s in sources.split(",") if s.strip()) if sources else None
    with GraphStore.connect(Settings.from_env()) as store:
        report = export_file(
            store, load_schema(), out, fmt=fmt, seed=seed, hops=hops, sources=wanted
        )
    cut = " (cut at the node limit)" if report.truncated else ""
    console.print(
        f"wrote {out}: {report.nodes:,} nodes, {report.edges:,} edges, {report.quads:,} quads "
        f"in {report.graphs} release graphs{cut}"
    )


@app.command("kgx")
@handle_errors
def kgx(
    out: Path = typer.Option(..., "--out", "-o", help="Folder for the nodes, edges and metadata."),
    fmt: str = typer.Option("jsonl", "--format", "-f", help="jsonl or tsv."),
    sources: str | None = typer.Option(
        None, "--sources", "-s", help="Only these sources' edges (comma-separated)."
    ),
) -> None:
    """The graph as KGX nodes and edges (Biolink categories, predicates and knowledge sources)
    with a graph-level metadata file naming each source's release and licence."""
    from biokg.core.store import GraphStore
    from biokg.export.kgx import export_kgx

    wanted = source_ids(s.strip() for s in sources.split(",") if s.strip()) if sources else None
    with GraphStore.connect(Settings.from_env()) as store:
        report = export_kgx(store, load_schema(), out, fmt=fmt, sources=wanted)
    console.print(
        f"wrote {out}: {report.nodes:,} nodes, {report.edges:,} edges in {report.seconds:.1f} s "
        f"({report.edges_per_s:,.0f} edges/s)"
    )


@app.command("ml")
@handle_errors
def ml(
    out: Path = typer.Option(..., "--out", "-o", help="Folder for the parquet tables."),
    split: str = typer.Option(
        "disease", "--split", help="disease (hold out whole diseases) or random (pairs)."
    ),
    test: float = typer.Option(0.1, "--test", help="Share of diseases (or pairs) for test."),
    valid: float = typer.Option(0.1, "--valid", help="Share for validation."),
    seed: int = typer.Option(0, "--seed", help="Seed of the split's shuffle."),
) -> None:
    """The graph as integer-indexed parquet node and edge tables (text embeddings as node
    features) with a leakage-free drug-disease link-prediction split; a PyG HeteroData file
    too when torch_geometric is installed."""
    from biokg.core.store import GraphStore
    from biokg.export.ml import export_ml

    with GraphStore.connect(Settings.from_env()) as store:
        report = export_ml(
            store,
            load_schema(),
            out,
            split=split,
            test_fraction=test,
            valid_fraction=valid,
            seed=seed,
        )
    splits = ", ".join(f"{name} {n:,}" for name, n in sorted(report.splits.items()))
    console.print(
        f"wrote {out}: {report.nodes:,} nodes ({report.embedded:,} with embeddings), "
        f"{report.edges:,} edges ({splits}; {report.held_out_diseases:,} diseases in test) "
        f"in {report.seconds:.1f} s ({report.edges_per_s:,.0f} edges/s)"
        + ("; hetero_data.pt for PyG" if report.hetero_data else "")
    )
