"""The options ``biokg build`` and ``biokg refresh`` share, defined once.

Both name sources (``--sources``), may read a deliberate sample (``--sample``), embed what changed
(``--embed/--no-embed``) and take one ``--accept-<name>-license`` per source that declares terms
(``SOURCE.license_terms``). The flags are made from the registry each time the app is made, so a
new source brings its own flag (decision 0032).
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from biokg.cli import handle_errors
from biokg.core.settings import Settings
from biokg.ingest.sources import SOURCES


@dataclass(frozen=True)
class SourceRun:
    """What the shared options say: the sources named, in the order given, and the settings to
    run them with (the licences accepted on the command line added)."""

    names: tuple[str, ...]
    sample: bool
    embed: bool
    settings: Settings


def _flag(name: str) -> str:
    return f"accept_{name}_license"


def _shared_parameters() -> list[inspect.Parameter]:
    """The shared options as keyword parameters, the licence flags read from the registry now."""
    defaults = ",".join(n for n, s in SOURCES.items() if s.SOURCE.default)
    options: dict[str, tuple[type, Any]] = {
        "sources": (
            str,
            typer.Option(
                defaults, "--sources", "-s", help=f"Comma-separated: {', '.join(SOURCES)}"
            ),
        ),
        "sample": (
            bool,
            typer.Option(
                False, "--sample", help="Inputs are a deliberate sample: only upper count bounds."
            ),
        ),
        "embed": (
            bool,
            typer.Option(
                True, "--embed/--no-embed", help="Embed the text of new and changed nodes."
            ),
        ),
    }
    for name, source in SOURCES.items():
        terms = source.SOURCE.license_terms
        if terms is not None:
            help_text = (
                f"Accept {name}'s terms: {terms} (also BIOKG_{name.upper()}_ACCEPT_LICENSE=1)"
            )
            options[_flag(name)] = (
                bool,
                typer.Option(False, f"--accept-{name}-license", help=help_text),
            )
    return [
        inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
        for key, (kind, option) in options.items()
    ]


class SourceCommand:
    """A command taking the shared options, then its own: ``body(run, **own_options)``.

    Typer reads a command's options from its signature; this one's is made when Typer asks
    (each time the app is made), so the licence flags follow the registry. Errors take the CLI's
    one path (:func:`~biokg.cli.handle_errors`).
    """

    def __init__(self, body: Callable[..., Any]) -> None:
        self._body = body
        self.__name__ = body.__name__
        self.__qualname__ = body.__qualname__
        self.__module__ = body.__module__
        self.__doc__ = body.__doc__

    @property
    def _own(self) -> list[inspect.Parameter]:
        """The body's own options: its parameters after the :class:`SourceRun`."""
        own = list(inspect.signature(self._body, eval_str=True).parameters.values())[1:]
        return [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.Signature([*_shared_parameters(), *self._own])

    @property
    def __annotations__(self) -> dict[str, Any]:
        hints = typing.get_type_hints(self._body)
        shared = {p.name: p.annotation for p in _shared_parameters()}
        return {**shared, **{p.name: hints[p.name] for p in self._own}}

    def __call__(self, **options: Any) -> Any:
        return handle_errors(self._run)(**options)

    def _run(self, **options: Any) -> Any:
        names = tuple(s.strip() for s in options.pop("sources").split(",") if s.strip())
        settings = Settings.from_env()
        accepted = [n for n in SOURCES if options.pop(_flag(n), False)]
        if accepted:
            accepted_all = (*settings.accepted_licenses, *accepted)
            settings = dataclasses.replace(settings, accepted_licenses=accepted_all)
        run = SourceRun(names, options.pop("sample"), options.pop("embed"), settings)
        return self._body(run, **options)
