"""``biokg build``: load sources into the graph, with progress bars."""

from __future__ import annotations

from pathlib import Path

import typer

from biokg.cli import console, progress_bars
from biokg.cli.embed import embed_nodes
from biokg.cli.options import SourceCommand, SourceRun
from biokg.cli.status import print_summary
from biokg.core.store import GraphStore
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest.bridge import INFORES as BRIDGE
from biokg.ingest.build import build, check_licenses


@SourceCommand
def build_command(
    run: SourceRun,
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Read source files from this folder (standard file names)."
    ),
    online: bool = typer.Option(
        False, "--online", help="Download the latest releases instead of the offline data."
    ),
    force: bool = typer.Option(
        False, "--force", help="Reload every named source, even one already read by this code."
    ),
) -> None:
    """Build or update the graph; a source whose inputs and code did not change is skipped."""
    settings = run.settings
    check_licenses(run.names, settings)  # before an engine starts for nothing
    # questions asked meanwhile read the lexicon of the graph as it was (LexiconBuild)
    writing = f"biokg build {', '.join(run.names)}"
    with (
        LexiconBuild(settings.cache_dir, writing=writing) as lexicon,
        GraphStore.connect(settings) as store,
    ):
        with progress_bars() as progress:
            results = build(
                store,
                settings,
                run.names,
                data_dir=data_dir,
                offline=not online,
                sample=run.sample,
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
        if run.embed:
            embed_nodes(store, settings)
        lexicon.lexicon(store)  # the agent's names of the new graph, built once here
        print_summary(store)
