"""``biokg refresh``: the refresh flow's steps from the CLI (no Prefect server needed)."""

from __future__ import annotations

import dataclasses
import json

import typer

from biokg.cli import console, handle_errors
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest.build import DEFAULT_SOURCES, SOURCES
from biokg.ingest.refresh import FAILED, refresh, text_report
from biokg.settings import Settings
from biokg.store import GraphStore


@handle_errors
def refresh_command(
    sources: str = typer.Option(
        ",".join(DEFAULT_SOURCES), "--sources", "-s", help=f"Comma-separated: {', '.join(SOURCES)}"
    ),
    offline: bool = typer.Option(
        False,
        "--offline",
        help="Ask no official upstream: read the offline data (sources with a mirror, "
        "BIOKG_<SOURCE>_URL, still ask it).",
    ),
    sample: bool = typer.Option(
        False, "--sample", help="Inputs are a deliberate sample: only upper count bounds apply."
    ),
    embed: bool = typer.Option(
        True, "--embed/--no-embed", help="Embed new and changed nodes when anything changed."
    ),
    accept_kegg_license: bool = typer.Option(
        False, "--accept-kegg-license", help="Accept KEGG's terms (see `biokg build --help`)."
    ),
    output: str = typer.Option("table", "--output", "-o", help="table or json"),
) -> None:
    """Bring each source up to its publisher's release, writing only what changed; exit 1 if
    any source failed (the others are still refreshed)."""
    names = tuple(s.strip() for s in sources.split(",") if s.strip())
    settings = Settings.from_env()
    if accept_kegg_license:
        accepted = (*settings.accepted_licenses, "kegg")
        settings = dataclasses.replace(settings, accepted_licenses=accepted)
    # questions asked meanwhile read the lexicon of the graph as it was (LexiconBuild)
    with GraphStore.connect(settings) as store, LexiconBuild(settings.cache_dir) as lexicon:
        reports = refresh(store, settings, names, offline=offline, sample=sample, embed=embed)
        lexicon.lexicon(store)  # the agent's names of the refreshed graph, built once here
    if output == "json":
        print(json.dumps([r.as_dict() for r in reports], indent=2))
    else:
        console.print(text_report(reports), markup=False, highlight=False, end="")
    if any(r.status == FAILED for r in reports):
        raise typer.Exit(1)
