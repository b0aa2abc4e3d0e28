"""The ``biokg`` command line: one module per command group, one error path."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from biokg.core.settings import Settings
from biokg.errors import FREE_SPACE, BiokgError, DiskFullError, is_disk_full

console = Console()
err_console = Console(stderr=True)


def handle_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a BiokgError, or a write that failed for lack of disk space, into one red line on
    stderr and exit code 1 (no traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BiokgError as err:
            err_console.print(f"[bold red]error:[/] {err}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        except Exception as err:
            if not is_disk_full(err):
                raise
            full = _disk_full(err)
            err_console.print(f"[bold red]error:[/] {full}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper


def _disk_full(err: Exception) -> DiskFullError:
    """A write of biokg's own (a cache file, the lexicon, a load's snapshot) that failed for
    lack of space, as one error naming the file, or the home when the error names none (a
    ``write`` on a full disk does not)."""
    named = getattr(err, "filename", None)
    if named:
        where = Path(named)
    else:
        try:
            where = Settings.from_env().home
        except BiokgError:
            where = Path.cwd()
    return DiskFullError.on(
        where,
        "a file could not be written",
        FREE_SPACE,
        cause=err,
    )


@contextmanager
def progress_bars() -> Iterator[Callable[[str, int, int], None]]:
    """One progress bar per task name; yields the ``(what, done, total)`` callback to pass down."""
    columns = (
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as bars:
        tasks: dict[str, Any] = {}

        def progress(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bars.add_task(what, total=total)
            bars.update(tasks[what], completed=done, total=total)

        yield progress


def main() -> None:
    """Console-script entry point."""
    import sys

    from biokg.cli.app import create_app

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    create_app(sys.argv[1:])(prog_name="biokg")
