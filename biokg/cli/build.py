"""``biokg build``: load sources into the graph, with progress bars."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from biokg.cli import console, handle_errors, progress_bars
from biokg.cli.embed import embed_nodes
from biokg.cli.status import print_summary
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest.bridge import INFORES as BRIDGE
from biokg.ingest.build import DEFAULT_SOURCES, SOURCES, build, check_licenses
from biokg.settings import Settings
from biokg.store import GraphStore


@handle_errors
def build_command(
    sources: str = typer.Option(
        ",".join(DEFAULT_SOURCES), "--sources", "-s", help=f"Comma-separated: {', '.join(SOURCES)}"
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Read source files from this folder (standard file names)."
    ),
    online: bool = typer.Option(
        False, "--online", help="Download the latest releases instead of the offline data."
    ),
    sample: bool = typer.Option(
        False, "--sample", help="Inputs are a deliberate sample: only upper count bounds apply."
    ),
    embed: bool = typer.Option(
        True, "--embed/--no-embed", help="Then embed the text of new and changed nodes."
    ),
    force: bool = typer.Option(
        False, "--force", help="Reload every named source, even one already read by this code."
    ),
    accept_kegg_license: bool = typer.Option(
        False,
        "--accept-kegg-license",
        help="KEGG is opt-in: academic use only, no redistribution, no bulk download; fetched "
        "at <= 3 requests/s and cached (also BIOKG_KEGG_ACCEPT_LICENSE=1).",
    ),
) -> None:
    """Build or update the graph; a source whose inputs and code did not change is skipped."""
    names = tuple(s.strip() for s in sources.split(",") if s.strip())
    settings = Settings.from_env()
    if accept_kegg_license:
        accepted = (*settings.accepted_licenses, "kegg")
        settings = dataclasses.replace(settings, accepted_licenses=accepted)
    check_licenses(names, settings)  # before an engine starts for nothing
    # questions asked meanwhile read the lexicon of the graph as it was (LexiconBuild)
    with GraphStore.connect(settings) as store, LexiconBuild(settings.cache_dir) as lexicon:
        with progress_bars() as progress:
            results = build(
                store,
                settings,
                names,
                data_dir=data_dir,
                offline=not online,
                sample=sample,
                force=force,
                progress=progress,
            )
        for r in results:
            if r.skipped and r.source == BRIDGE:
                console.print(
                    f"disease bridge {r.version}: same mappings and diseases, skipped (it follows "
                    "the sources' diseases; --force reloads sources)"
                )
            elif r.skipped:
                console.print(
                    f"{r.source} {r.version}: unchanged inputs and code, skipped (--force reloads)"
                )
            else:
                console.print(
                    f"{r.source} {r.version}: {r.nodes_created} nodes created, "
                    f"{r.nodes_updated} updated, {r.edges_written} edges written, "
                    f"{r.edges_deleted} stale edges deleted"
                )
                ident = r.identity or {}
                if ident.get("drugs"):
                    console.print(
                        f"  drug identity: {ident['drugs']} drugs, merged {ident['merged']}, "
                        f"{ident['unmatched']} unmatched, {len(ident['conflicts'])} ambiguous "
                        "(names with several candidate drugs: kept apart; `biokg resolve NAME`)"
                    )
                if "bridged" in ident:
                    console.print(
                        f"  disease bridge: SAME_AS edges {ident['bridged']}, conflicts "
                        f"{ident['conflicts']} (`biokg status --merges`)"
                    )
        if embed:
            embed_nodes(store, settings)
        lexicon.lexicon(store)  # the agent's names of the new graph, built once here
        print_summary(store)
