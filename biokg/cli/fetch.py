"""``biokg fetch openfda``: download openFDA API pages or bulk files into a data folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from biokg.cli import console, handle_errors
from biokg.core.settings import Settings
from biokg.ingest.online.openfda import API_URL, DOWNLOAD_INDEX, fetch_api, fetch_bulk

app = typer.Typer(help="Download source files for an online build.", no_args_is_help=True)


@app.command("openfda")
@handle_errors
def openfda_command(
    endpoint: str = typer.Argument(..., help="drug/label or drug/event"),
    into: Path = typer.Option(..., "--into", help="The data folder to put the files in."),
    search: str = typer.Option("", "--search", help='openFDA search, e.g. openfda.unii:"X"'),
    max_records: int | None = typer.Option(None, "--max-records", help="Stop after this many."),
    bulk: bool = typer.Option(False, "--bulk", help="The bulk zip files (all records; GBs)."),
    api_url: str = typer.Option(API_URL, "--api-url", hidden=True),
    index_url: str = typer.Option(DOWNLOAD_INDEX, "--index-url", hidden=True),
) -> None:
    """Fetch within openFDA's limits (240/min; 1,000/day, or 120,000 with
    BIOKG_OPENFDA_API_KEY), cached; then build with --data-dir pointing at the folder."""
    settings = Settings.from_env()
    cache = settings.cache_dir
    if bulk:
        files = fetch_bulk(endpoint, cache_dir=cache, index_url=index_url)
    else:
        files = fetch_api(
            endpoint,
            search,
            cache_dir=cache,
            api_key=settings.openfda_api_key,
            max_records=max_records,
            base_url=api_url,
        )
    into.mkdir(parents=True, exist_ok=True)
    for path in files:
        shutil.copyfile(path, into / path.name)
    console.print(f"{len(files)} file(s) of {endpoint} in {into}", highlight=False)
