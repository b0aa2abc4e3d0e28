"""``biokg status`` (what the graph holds) and ``biokg schema`` (docs and Cypher from schema/)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from biokg.browser_guide import browser_files
from biokg.cli import console, handle_errors
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, neo4j_cypher_files
from biokg.schema import load_schema, render_markdown
from biokg.summary import graph_summary, load_history, merge_summary

schema_app = typer.Typer(
    help="Documentation and Cypher generated from schema/.", no_args_is_help=True
)


def print_summary(store: GraphStore) -> None:
    summary = graph_summary(store)
    nodes = Table("label", "nodes", title=f"{summary['engine']} database {summary['database']}")
    for label, count in sorted(summary["labels"].items()):
        nodes.add_row(label, f"{count:,}")
    edges = Table("relationship", "source", "edges")
    for row in summary["relationships"]:
        edges.add_row(row["type"], row["source"] or "-", f"{row['count']:,}")
    versions = Table("source", "version", "current", "loaded at")
    for row in summary["sources"]:
        versions.add_row(row["source"], row["version"], str(row["current"]), row["loaded_at"])
    console.print(nodes, edges, versions)
    console.print(f"edges missing provenance: {summary['edges_missing_provenance']}")


def print_merges(report: dict) -> None:
    nodes = Table("label", "nodes", "per source", "asserted by 1 / 2 / 3+ sources")
    for label, entry in report["labels"].items():
        by = entry["by_sources"]
        several = sum(v for k, v in by.items() if int(k) >= 3)
        per = ", ".join(
            f"{s.removeprefix('infores:')} {n:,}" for s, n in entry["per_source"].items()
        )
        nodes.add_row(
            label,
            f"{entry['nodes']:,}",
            per,
            f"{by.get('1', 0):,} / {by.get('2', 0):,} / {several:,}",
        )
    drugs = Table("drug records of", "records", "merged (by rule)", "unmatched", "ambiguous")
    for source, r in report["drugs"].items():
        drugs.add_row(
            source,
            f"{r['drugs']:,}",
            str(r["merged"]),
            str(r["unmatched"]),
            str(r["conflicts_total"]),
        )
    console.print(nodes, drugs)
    bridge = report["disease_bridge"]
    if bridge:
        table = Table("disease bridge: MONDO mapping set", "exact matches read")
        for name, count in bridge["mappings"].items():
            table.add_row(name.rsplit("/", 1)[-1], f"{count:,}")
        edges = Table("SAME_AS edges", "count")
        for kind, count in bridge["bridged"].items():
            edges.add_row(kind, f"{count:,}")
        console.print(table, edges)
        console.print(
            f"diseases bridged per prefix: {bridge['diseases_bridged']}; unbridged: "
            f"{bridge['diseases_unbridged']}"
        )
        console.print(f"conflicts (left unbridged): {bridge['conflicts']}")
        if "named" in bridge:  # a bridge load of 2026-11-29 or later
            console.print(
                f"disease records given their MONDO term's names as synonyms: {bridge['named']:,}"
            )


def print_history(rows: list[dict]) -> None:
    table = Table("loaded at", "source", "version", "current", "how", "edges +/~/−", "writes")
    for row in rows:
        report = row["refresh"]
        how, edges, writes = "build", "", ""
        if report:
            how = f"refresh: {report['status']}"
            edges = (
                f"+{report['edges_added']} ~{report['edges_changed']} −{report['edges_removed']}"
            )
            writes = str(report["writes"])
        table.add_row(
            row["loaded_at"], row["source"], row["version"], str(row["current"]), how, edges, writes
        )
    console.print(table)


@handle_errors
def status_command(
    output: str = typer.Option("table", "--output", "-o", help="table or json"),
    merges: bool = typer.Option(
        False, "--merges", help="Where sources met: merged nodes, bridges, conflicts."
    ),
    history: bool = typer.Option(
        False, "--history", help="Every load, newest first, with the refresh report that made it."
    ),
) -> None:
    """Counts per label, relationship type and source, and the loaded source versions."""
    with GraphStore.connect(Settings.from_env()) as store:
        if history:
            rows = load_history(store)
            if output == "json":
                print(json.dumps(rows, indent=2, default=str))
            else:
                print_history(rows)
        elif merges:
            report = merge_summary(store)
            if output == "json":
                print(json.dumps(report, indent=2))
            else:
                print_merges(report)
        elif output == "json":
            print(json.dumps(graph_summary(store), indent=2, default=str))
        else:
            print_summary(store)


@schema_app.command("docs")
@handle_errors
def schema_docs(
    out: Path | None = typer.Option(None, "--out", help="Write here instead of stdout."),
) -> None:
    """The schema summary in Markdown (labels, types, provenance)."""
    text = render_markdown(load_schema())
    if out is None:
        print(text, end="")
    else:
        out.write_text(text)


@schema_app.command("cypher")
@handle_errors
def schema_cypher(
    out_dir: Path = typer.Option(Path("cypher"), "--out-dir", help="Folder for the .cypher files."),
) -> None:
    """Write constraints.cypher, indexes.cypher, the Browser guide and style sheet."""
    schema = load_schema()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in {**neo4j_cypher_files(schema), **browser_files(schema)}.items():
        (out_dir / name).write_text(text)
        console.print(f"wrote {out_dir / name}")
