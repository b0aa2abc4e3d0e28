"""``biokg build``: load sources into the graph, with progress bars."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from biokg.cli import console, handle_errors
from biokg.cli.status import print_summary
from biokg.ingest.build import DEFAULT_SOURCES, SOURCES, build
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
) -> None:
    """Build or update the graph; sources whose inputs did not change are skipped."""
    names = tuple(s.strip() for s in sources.split(",") if s.strip())
    settings = Settings.from_env()
    columns = (
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with GraphStore.connect(settings) as store, Progress(*columns, console=console) as bars:
        tasks: dict[str, int] = {}

        def progress(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bars.add_task(what, total=total)
            bars.update(tasks[what], completed=done)

        results = build(
            store,
            settings,
            names,
            data_dir=data_dir,
            offline=not online,
            sample=sample,
            progress=progress,
        )
        bars.stop()
        for r in results:
            if r.skipped:
                console.print(f"{r.source} {r.version}: unchanged, skipped")
            else:
                console.print(
                    f"{r.source} {r.version}: {r.nodes_created} nodes created, "
                    f"{r.nodes_updated} updated, {r.edges_written} edges written, "
                    f"{r.edges_deleted} stale edges deleted"
                )
                if r.identity and r.identity["drugs"]:
                    ident = r.identity
                    console.print(
                        f"  drug identity: {ident['drugs']} drugs, merged {ident['merged']}, "
                        f"{ident['unmatched']} unmatched, {len(ident['conflicts'])} ambiguous "
                        "(names with several candidate drugs: kept apart; `biokg resolve NAME`)"
                    )
        print_summary(store)
