"""The top-level Typer app: registers each command group."""

from __future__ import annotations

import typer

from biokg.cli import agent, build, db, embed, export, fetch, resolve, serve, status

app = typer.Typer(
    help="biokg: a biomedical knowledge graph with provenance on every node and edge.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("build")(build.build_command)
app.command("embed")(embed.embed_command)
app.command("status")(status.status_command)
app.command("resolve")(resolve.resolve_command)
app.command("ask")(agent.ask_command)
app.command("search")(agent.search_command)
app.command("eval")(agent.eval_command)
app.command("serve")(serve.serve_command)
app.add_typer(db.app, name="db")
app.add_typer(export.app, name="export")
app.add_typer(fetch.app, name="fetch")
app.add_typer(status.schema_app, name="schema")
