"""``POST /diagnose``: which diseases fit a patient's observed (and excluded) HPO terms.

A thin route over :func:`biokg.graph_agent.diagnosis.service.diagnose`, the call ``biokg
diagnose`` and the MCP tool make; its response is the same :class:`Diagnosis` as the CLI's
``--json``. It sits behind the graph routes' gate (API key, in-flight limit, body size; see
:mod:`biokg.api.app`) and the request deadline of :func:`biokg.api.routes.request_timeout`.
The first call after a graph load builds the phenotype index (seconds); later calls rank in
milliseconds, so the first call has :data:`INDEX_BUILD_S` more than the usual deadline.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from biokg.api.errors import documented
from biokg.api.routes import Agent, in_thread, request_timeout
from biokg.graph_agent.diagnosis.load import index_loaded
from biokg.graph_agent.diagnosis.phenopacket import phenopacket_case
from biokg.graph_agent.diagnosis.ranker import DEFAULT_TOP, Diagnosis
from biokg.graph_agent.diagnosis.service import DEFAULT_METHOD, MAX_TOP, diagnose

#: The most terms a case may list on either side (published cases list up to ~60).
MAX_TERMS = 200
#: Extra time for the call that builds the index: it reads every HPO term, IS_A edge and
#: annotation of the graph (~270,000 rows at full HPO size; 10-40 s on a loaded 2-core machine).
INDEX_BUILD_S = 120.0
HpoId = Annotated[str, StringConstraints(pattern=r"^HP:\d{7}$")]
#: A reference as phenotype.hpoa's lines cite it (PMID:…, OMIM:…, ORPHA:…, ISBN-13:…).
Reference = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_.-]*:\S{1,64}$")]
#: The most references one case may withhold.
MAX_WITHHELD = 50

router = APIRouter()
#: The scorers a request may name.
Method = Literal["likelihood-ratio", "resnik-bma", "exact-ic"]


class DiagnoseRequest(BaseModel):
    """A patient's HPO terms, seen and explicitly absent, and how many diseases to list."""

    model_config = ConfigDict(extra="forbid")

    observed: list[HpoId] = Field(
        min_length=1, max_length=MAX_TERMS, examples=[["HP:0001166", "HP:0001083"]]
    )
    excluded: list[HpoId] = Field(
        default_factory=list, max_length=MAX_TERMS, examples=[["HP:0001250"]]
    )
    top: int = Field(DEFAULT_TOP, ge=1, le=MAX_TOP, description="how many diseases to list")
    method: Method = Field(
        DEFAULT_METHOD, description="the scorer (docs/decisions/0021-differential-diagnosis.md)"
    )
    withhold_references: list[Reference] = Field(
        default_factory=list,
        max_length=MAX_WITHHELD,
        examples=[["PMID:28513613"]],
        description="rank as if these publications did not exist: the annotation lines "
        "citing them are left out (docs/decisions/0025-leave-publication-out-diagnosis.md)",
    )


@router.post("/diagnose", response_model=Diagnosis, tags=["diagnosis"], responses=documented(413))
async def diagnose_route(body: DiagnoseRequest, agent: Agent) -> Diagnosis:
    """Diseases ranked for observed and excluded HPO terms, best first. Records the bridge
    joins (OMIM, Orphanet, MONDO) are one entry listing every id; each entry cites, per
    patient term, the disease term it met, their common ancestor, the contribution to the
    score and the annotation edge with its source record. Terms the graph's hierarchy lacks
    are listed in ``unknown`` and not scored. With ``withhold_references`` the case is ranked
    without the annotation lines citing them (``withheld_lines`` says how many)."""
    work = functools.partial(
        diagnose,
        agent.store,
        agent.cache_dir,
        body.observed,
        body.excluded,
        top=body.top,
        method=body.method,
        withhold=body.withhold_references,
    )
    cold = 0.0 if index_loaded() else INDEX_BUILD_S
    return await in_thread(work, seconds=request_timeout(agent.budget) + cold, store=agent.store)


@router.post(
    "/diagnose/phenopacket",
    response_model=Diagnosis,
    tags=["diagnosis"],
    responses=documented(413),
)
async def diagnose_phenopacket_route(
    agent: Agent,
    packet: Annotated[dict[str, Any], Body(description="one GA4GH v2 phenopacket (JSON)")],
    top: Annotated[int, Query(ge=1, le=MAX_TOP)] = DEFAULT_TOP,
    method: Annotated[Method, Query()] = DEFAULT_METHOD,
    withhold_references: Annotated[list[Reference], Query(max_length=MAX_WITHHELD)] = [],  # noqa: B006
) -> Diagnosis:
    """Diseases ranked for a GA4GH v2 phenopacket: its phenotypic features are the observed
    terms, those marked ``excluded`` the excluded ones (as ``POST /diagnose`` ranks them;
    features outside HPO are not scored). A body that is not a v2 phenopacket is a 422 with
    the schema's complaint."""
    case = phenopacket_case(packet, "request body")
    work = functools.partial(
        diagnose,
        agent.store,
        agent.cache_dir,
        case.observed,
        case.excluded,
        top=top,
        method=method,
        withhold=withhold_references,
    )
    cold = 0.0 if index_loaded() else INDEX_BUILD_S
    return await in_thread(work, seconds=request_timeout(agent.budget) + cold, store=agent.store)
