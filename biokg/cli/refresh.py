"""``biokg refresh``: the refresh flow's steps from the CLI (no Prefect server needed)."""

from __future__ import annotations

import json

import typer

from biokg.cli import console
from biokg.cli.options import SourceCommand, SourceRun
from biokg.core.store import GraphStore
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest.refresh import FAILED, refresh, text_report


@SourceCommand
def refresh_command(
    run: SourceRun,
    offline: bool = typer.Option(
        False,
        "--offline",
        help="Ask no official upstream: read the offline data (sources with a mirror, "
        "BIOKG_<SOURCE>_URL, still ask it).",
    ),
    output: str = typer.Option("table", "--output", "-o", help="table or json"),
) -> None:
    """Bring each source up to its publisher's release, writing only what changed; exit 1 if
    any source failed (the others are still refreshed)."""
    settings = run.settings
    # questions asked meanwhile read the lexicon of the graph as it was (LexiconBuild)
    writing = f"biokg refresh {', '.join(run.names)}"
    with (
        LexiconBuild(settings.cache_dir, writing=writing) as lexicon,
        GraphStore.connect(settings) as store,
    ):
        reports = refresh(
            store, settings, run.names, offline=offline, sample=run.sample, embed=run.embed
        )
        lexicon.lexicon(store)  # the agent's names of the refreshed graph, built once here
    if output == "json":
        print(json.dumps([r.as_dict() for r in reports], indent=2))
    else:
        console.print(text_report(reports), markup=False, highlight=False, end="")
    if any(r.status == FAILED for r in reports):
        raise typer.Exit(1)
