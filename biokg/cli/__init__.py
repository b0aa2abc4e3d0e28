"""The ``biokg`` command line: one module per command group, one error path."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console

from biokg.errors import BiokgError

console = Console()
err_console = Console(stderr=True)


def handle_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a BiokgError into one red line on stderr and exit code 1 (no traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BiokgError as err:
            err_console.print(f"[bold red]error:[/] {err}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper


def main() -> None:
    """Console-script entry point."""
    from biokg.cli.app import app

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app(prog_name="biokg")
