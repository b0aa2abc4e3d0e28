"""The explorer page at ``/``: search, entity cards, neighbourhoods and cited answers, drawn.

The page is static (``static/``: plain HTML/JS/CSS and Cytoscape.js 3.34.4, MIT, vendored from
npm so it works offline) and holds no data, so it needs no key; every graph call it makes goes
to the protected API routes with the key the user gives it. ``/explorer/config`` tells the page
whether to ask for a key before its first call, and how to draw each label (schema/'s
``display``).
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from biokg.api.models import ExplorerConfig, LabelDisplay

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
