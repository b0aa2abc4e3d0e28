"""``biokg resolve``: which Drug node(s) a brand, generic or synonym name (or an id) stands for."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from biokg.cli import console, handle_errors
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.ingest.identity import graph_drug_index


@handle_errors
def resolve_command(
    name: str = typer.Argument(..., help="A brand, generic or synonym name, or a CURIE."),
    output: str = typer.Option("table", "--output", "-o", help="table or json"),
) -> None:
    """Resolve a drug name; an ambiguous name lists every candidate with the rule that matched."""
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        matches = graph_drug_index(store, cache_dir=settings.cache_dir).lookup(name)
    if output == "json":
        print(json.dumps([m.__dict__ for m in matches], indent=2))
        return
    if not matches:
        console.print(f"no Drug node matches {name!r}")
        raise typer.Exit(1)
    table = Table("drug", "rule", "matched", title=f"{name!r}: {len(matches)} candidate(s)")
    for match in matches:
        table.add_row(match.id, match.rule, match.matched)
    console.print(table)
