"""The API's routes: each parses its input, runs one library call off the event loop, and returns.

Graph work is bounded twice: by the question's :class:`Budget` (queries, rows, graph time, per
query timeout, checked by the agent's runner) and by a request deadline derived from that
budget, after which the client gets 504 and the worker thread finishes on its own budget.
Past the deadline the engine is asked whether it is alive: a stalled one makes it a 503
instead, naming the engine, since no narrower question would help. A dead engine is 503 at
once (the store's connect deadline and short retry budget, decision 0030).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Literal, TypeVar

import anyio
import anyio.to_thread
from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic_core import to_json
from sse_starlette import EventSourceResponse, ServerSentEvent

from biokg import cypher
from biokg.answer_rdf import answer_graph
from biokg.api.entities import entity_details
from biokg.api.errors import documented, error_body
from biokg.api.models import (
    MAX_SEARCH_CHARS,
    AskRequest,
    EntityDetails,
    Health,
    Neighbourhood,
)
from biokg.api.neighbourhood import neighbourhood
from biokg.core.store import GraphStore
from biokg.errors import BiokgError, BudgetExceededError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.models import Answer, Candidate, StepEvent
from biokg.graph_agent.runner import Budget
from biokg.graph_agent.searchers import VectorSearcher

T = TypeVar("T")
#: Time for what the budget does not count (linking, data versions, the answer), in seconds.
OVERHEAD_S = 5.0
HEALTH_TIMEOUT_S = 10.0
#: How long a liveness query (``RETURN 1``, milliseconds on a healthy engine) may take before the
#: engine counts as stalled: ``/health`` answers 503 within it, as does a request past its
#: deadline whose engine does not answer.
LIVENESS_TIMEOUT_S = 1.5

public = APIRouter()
protected = APIRouter()


def get_agent(request: Request) -> GraphAgent:
    """The agent the lifespan built."""
    return request.app.state.agent


Agent = Annotated[GraphAgent, Depends(get_agent)]
#: A node id: a CURIE, prefix:local id (``CHEMBL.COMPOUND:CHEMBL192``); anything else is a 422.
Curie = Annotated[
    str,
    Path(
        pattern=r"^[A-Za-z][A-Za-z0-9._-]*:\S+$",
        max_length=200,
        description="a node id, prefix:local id, e.g. CHEMBL.COMPOUND:CHEMBL192 "
        "(find ids by name with GET /search)",
    ),
]


def request_timeout(budget: Budget) -> float:
    """The longest a request under ``budget`` may take: its graph time, one more query, overhead.

    The runner checks the time budget before each query, so the last query may start just
    inside it and run for up to its own timeout.
    """
    return budget.max_seconds + budget.query_timeout_s + OVERHEAD_S


async def in_thread(
    work: Callable[[], T],
    *,
    seconds: float,
    since: float | None = None,
    store: GraphStore | None = None,
) -> T:
    """Run blocking graph work in a worker thread; stop waiting ``seconds`` after ``since``.

    Args:
        since: when the request's clock started (``anyio.current_time()``); default now.
        store: the engine the work runs on: past the deadline, it is checked alive.

    Raises:
        BudgetExceededError: the work took longer (the thread is abandoned, not killed).
        StoreUnavailableError: it took longer, and ``store``'s engine does not answer either.
    """
    start = anyio.current_time() if since is None else since
    with anyio.CancelScope(deadline=start + seconds):
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    if store is not None:
        await require_engine(store)
    raise BudgetExceededError(
        f"the request took longer than {seconds:.0f} s; "
        "ask a narrower question or send a smaller budget"
    )


async def require_engine(store: GraphStore) -> None:
    """Return once the engine answers a liveness query; give up after
    :data:`LIVENESS_TIMEOUT_S` (a stalled engine accepts connections and never answers).

    Raises:
        StoreUnavailableError: the engine is unreachable, refused, or did not answer in time.
    """
    with anyio.move_on_after(LIVENESS_TIMEOUT_S):
        await anyio.to_thread.run_sync(store.ping, abandon_on_cancel=True)
        return
    raise store.unavailable(
        f"no answer within {LIVENESS_TIMEOUT_S:g} s (the engine is stalled or overloaded)"
    )


async def require_searchable(agent: GraphAgent, text: str, where: tuple[str, str]) -> None:
    """Refuse a text the search model makes nothing of: every character unknown to it (runes,
    emoji) embeds to a zero vector, which the engine's vector index cannot rank.

    Args:
        where: the text's place in the request, e.g. ``("query", "q")``.

    Raises:
        RequestValidationError: the text's vector is all zeros (422 naming the field).
    """
    for searcher in agent.linker.searchers:
        if isinstance(searcher, VectorSearcher):
            [vector] = await in_thread(
                functools.partial(searcher.embedder.embed, [text]),
                seconds=request_timeout(agent.budget),  # the first text loads the model
            )
            if not any(vector):
                message = (
                    "no word or character of this text is known to the search model; write "
                    "names in Latin letters, digits or ids (e.g. CHEMBL.COMPOUND:CHEMBL192)"
                )
                raise RequestValidationError(
                    [{"loc": where, "msg": message, "type": "value_error"}]
                )


@public.get("/health", response_model=Health, tags=["health"], responses=documented(502, 503, 504))
async def health(agent: Agent) -> Health:
    """Whether the graph engine answers (else 503 within a couple of seconds), and the source
    versions it serves. No key needed."""
    await require_engine(agent.store)

    def check() -> Health:
        versions = agent.store.read(cypher.load("agent_data_versions"))
        return Health(
            engine=agent.store.dialect.name, database=agent.store.database, data_versions=versions
        )

    return await in_thread(check, seconds=HEALTH_TIMEOUT_S, store=agent.store)


@protected.post(
    "/ask",
    response_model=Answer,
    tags=["agent"],
    responses={
        200: {"content": {"text/turtle": {"schema": {"type": "string"}}}},
        **documented(413),
    },
)
async def ask(
    body: AskRequest,
    agent: Agent,
    format: Annotated[
        Literal["json", "turtle"],
        Query(description="json, or turtle: the evidence graph and claims as RDF"),
    ] = "json",
) -> Answer | Response:
    """Answer a question: claims citing node/edge ids and source records, the evidence graph,
    every query run, timings and data versions (``format=turtle``: the same as RDF)."""
    budget = body.budget.within(agent.budget) if body.budget else agent.budget
    await require_searchable(agent, body.question, ("body", "question"))
    work = functools.partial(agent.ask, body.question, budget=budget)
    answer = await in_thread(work, seconds=request_timeout(budget), store=agent.store)
    if format == "turtle":
        turtle = answer_graph(answer, agent.schema).serialize(format="turtle")
        return Response(turtle, media_type="text/turtle")
    return answer


@protected.post(
    "/ask/stream",
    response_class=EventSourceResponse,
    tags=["agent"],
    responses={200: {"content": {"text/event-stream": {}}}, **documented(413)},
)
async def ask_stream(body: AskRequest, agent: Agent) -> EventSourceResponse:
    """The steps of answering as server-sent events, as they happen.

    One event per step, named by its kind: ``linking``, ``plan``, ``query`` (one per query run),
    ``partial``, and last ``answer`` (data: the same JSON as ``POST /ask``). A failure after the
    stream started arrives as an ``error`` event with the usual error body, and ends the stream.
    """
    budget = body.budget.within(agent.budget) if body.budget else agent.budget
    await require_searchable(agent, body.question, ("body", "question"))
    limit, since = request_timeout(budget), anyio.current_time()
    events = agent.stream(body.question, budget=budget)
    # the first step runs before the response starts, so bad input still gets its status code
    first = await in_thread(
        functools.partial(next, events), seconds=limit, since=since, store=agent.store
    )
    return EventSourceResponse(_sse(first, events, limit, since, agent.store))


async def _sse(
    first: StepEvent,
    events: Iterator[StepEvent],
    limit: float,
    since: float,
    store: GraphStore,
) -> AsyncIterator[ServerSentEvent]:
    yield _event(first.kind, first.data.model_dump())
    while True:
        try:
            step = await in_thread(
                functools.partial(next, events, None), seconds=limit, since=since, store=store
            )
        except BiokgError as err:
            yield _event("error", error_body(err).model_dump())
            return
        if step is None:
            return
        yield _event(step.kind, step.data.model_dump())


def _event(name: str, data: dict) -> ServerSentEvent:
    return ServerSentEvent(event=name, data=to_json(data).decode())


@protected.get("/search", response_model=list[Candidate], tags=["graph"])
async def search(
    agent: Agent,
    q: Annotated[str, Query(min_length=1, max_length=MAX_SEARCH_CHARS)],
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
) -> list[Candidate]:
    """Nodes a name, synonym, brand name or id may mean, best first (ambiguity kept)."""
    await require_searchable(agent, q, ("query", "q"))
    return await in_thread(
        functools.partial(agent.linker.link, q, limit=limit),
        seconds=request_timeout(agent.budget),
        store=agent.store,
    )


@protected.get(
    "/entities/{curie}", response_model=EntityDetails, tags=["graph"], responses=documented(404)
)
async def entity(agent: Agent, curie: Curie) -> EntityDetails:
    """One entity: id, name, Biolink category, synonyms, xrefs, sources with the releases loaded,
    and its label's own properties."""
    work = functools.partial(entity_details, agent.store, agent.schema, curie)
    return await in_thread(work, seconds=request_timeout(agent.budget), store=agent.store)


@protected.get(
    "/entities/{curie}/neighbourhood",
    response_model=Neighbourhood,
    tags=["graph"],
    responses=documented(404),
)
async def entity_neighbourhood(
    agent: Agent,
    curie: Curie,
    types: Annotated[
        str | None, Query(description="comma-separated relationship types; default all")
    ] = None,
    limit: Annotated[
        int,
        Query(
            ge=1, le=200, description="rows per seed (the entity, each twin), type and direction"
        ),
    ] = 25,
) -> Neighbourhood:
    """One hop around an entity and around its twins (the same entity under other sources' ids,
    joined by SAME_AS): edge counts per seed, type, direction and label, then edge rows with
    their provenance (source, source_version, source_record), each naming the seed whose edge
    it is."""
    wanted = [t.strip() for t in (types or "").split(",") if t.strip()]
    work = functools.partial(
        neighbourhood, agent, curie, types=wanted, limit=limit, budget=agent.budget
    )
    return await in_thread(work, seconds=request_timeout(agent.budget), store=agent.store)
