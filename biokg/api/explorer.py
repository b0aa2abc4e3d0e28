"""The explorer page at ``/``: search, entity cards, neighbourhoods and cited answers, drawn.

The page is static (``static/``: plain HTML/JS/CSS and Cytoscape.js 3.34.4, MIT, vendored from
npm so it works offline) and holds no data, so it needs no key; every graph call it makes goes
to the protected API routes with the key the user gives it. ``/explorer/config`` tells the page
whether to ask for a key before its first call, and how to draw each label (schema/'s
``display``); ``/explorer/links`` where ids and source records resolve, so the page holds no
URL table of its own.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import PurePosixPath
from urllib.parse import urlparse

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from biokg.api.models import ExplorerConfig, LabelDisplay
from biokg.ingest import bridge
from biokg.ingest.sources import SOURCES

#: No inline script and nothing from elsewhere: the page runs only the package's own files.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
STATIC = files("biokg.api") / "static"

explorer = APIRouter()


@explorer.get("/", response_class=HTMLResponse, include_in_schema=False)
async def page() -> HTMLResponse:
    """The explorer page (no key needed: it holds no data)."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    return HTMLResponse(html, headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY})


@explorer.get("/explorer/config", response_model=ExplorerConfig, tags=["explorer"])
async def config(request: Request) -> ExplorerConfig:
    """Whether the API wants a key, and each label's colour and caption from schema/."""
    schema = request.app.state.agent.schema
    return ExplorerConfig(
        api_key_required=request.app.state.api_key is not None,
        labels={
            name: LabelDisplay(color=spec.display.color, caption=spec.display.caption)
            for name, spec in sorted(schema.labels.items())
        },
    )


class ExplorerLinks(BaseModel):
    """Where the page links ids and source records to."""

    model_config = ConfigDict(extra="forbid")

    resolvers: dict[str, str] = Field(
        description="CURIE prefix -> the URL its ids resolve at, {id} standing for the local id "
        "(schema/prefixes.yaml)"
    )
    record_files: dict[str, dict[str, str]] = Field(
        description="source (infores id) -> file name -> its download URL: a source_record "
        "'<file>#<line or key>' or '<file>:<line>' links to its file"
    )


@explorer.get("/explorer/links", response_model=ExplorerLinks, tags=["explorer"])
async def links(request: Request) -> ExplorerLinks:
    """Where ids resolve (schema/'s resolver per prefix) and which source files have a URL."""
    return ExplorerLinks(
        resolvers=request.app.state.agent.schema.resolvers, record_files=record_files()
    )


@cache
def record_files() -> dict[str, dict[str, str]]:
    """Each source's files that a URL serves as such: the URL's last segment is the file, or
    the file compressed. A listing or a name pattern (openFDA's download folder, ChEMBL's
    ``chembl_NN_sqlite.tar.gz``) would not lead to the record's file, so it gets no link."""
    declared = {s.SOURCE.infores: s.SOURCE.urls for s in SOURCES.values()}
    declared[bridge.INFORES] = {
        name: bridge.MAPPINGS_URL + name for name in bridge.MAPPING_FILES.values()
    }
    return {
        source: served
        for source, urls in sorted(declared.items())
        if (served := {f: u for f, u in sorted(urls.items()) if _serves(u, f)})
    }


def _serves(url: str, file: str) -> bool:
    name = PurePosixPath(urlparse(url).path).name
    return name == file or name.removeprefix(file) in {".gz", ".zip", ".bz2"}
