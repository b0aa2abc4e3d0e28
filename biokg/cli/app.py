"""The top-level Typer app: registers each command group.

A command's module is imported only when that command runs (``biokg ask`` should not wait for
the build pipeline's imports); help, or a name that is no command, registers them all. Tests
and ``python -c`` users get the full app as ``biokg.cli.app.app``.
"""

from __future__ import annotations

from importlib import import_module

import typer

#: command name → (module, function), in the order help lists them
COMMANDS = {
    "build": ("biokg.cli.build", "build_command"),
    "refresh": ("biokg.cli.refresh", "refresh_command"),
    "embed": ("biokg.cli.embed", "embed_command"),
    "status": ("biokg.cli.status", "status_command"),
    "resolve": ("biokg.cli.resolve", "resolve_command"),
    "ask": ("biokg.cli.agent", "ask_command"),
    "search": ("biokg.cli.agent", "search_command"),
    "eval": ("biokg.cli.agent", "eval_command"),
    "diagnose": ("biokg.cli.diagnose", "diagnose_command"),
    "serve": ("biokg.cli.serve", "serve_command"),
    "mcp": ("biokg.cli.mcp", "mcp_command"),
}
#: sub-command group name → (module, Typer app)
GROUPS = {
    "db": ("biokg.cli.db", "app"),
    "export": ("biokg.cli.export", "app"),
    "fetch": ("biokg.cli.fetch", "app"),
    "schema": ("biokg.cli.status", "schema_app"),
}


def create_app(args: list[str] | None = None) -> typer.Typer:
    """The app with the command ``args`` invokes registered, or every command."""
    wanted = args[0] if args and args[0] in {**COMMANDS, **GROUPS} else None
    app = typer.Typer(
        help="biokg: a biomedical knowledge graph with provenance on every node and edge.",
        no_args_is_help=True,
        add_completion=False,
    )

    @app.callback()
    def _group() -> None:
        """biokg: a biomedical knowledge graph with provenance on every node and edge."""

    for name, (module, attr) in COMMANDS.items():
        if wanted in (None, name):
            app.command(name)(getattr(import_module(module), attr))
    for name, (module, attr) in GROUPS.items():
        if wanted in (None, name):
            app.add_typer(getattr(import_module(module), attr), name=name)
    return app


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return create_app()
    raise AttributeError(name)
