"""An entity's one-hop neighbourhood, per record: its own edges and each bridged twin's.

A disease under one source's id (OMIM:154700) is often the same as records of other sources
(its MONDO term, ORPHA:558), joined by SAME_AS bridges. Their edges belong in the
neighbourhood, but as theirs: each row names the seed whose edge it is (the entity or a twin),
its direction is the direction at that seed, and each seed has its own per-group limit, so a
twin with many edges cannot crowd out the record's own. The twins come with their bridge edges,
so every node a client draws is named.

The work runs through a :class:`QueryRunner`: budgeted, logged, every edge with its provenance.
"""

from __future__ import annotations

from biokg.api.models import Neighbourhood, NeighbourRow, SurveyGroup, Twin
from biokg.errors import AgentInputError, EntityNotFoundError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.research import same_as
from biokg.graph_agent.runner import Budget, QueryRunner


def neighbourhood(
    agent: GraphAgent, curie: str, *, types: list[str], limit: int, budget: Budget
) -> Neighbourhood:
    """The survey of ``curie``'s and its twins' neighbours, and up to ``limit`` edges per seed,
    type and direction (groups smallest first, while the budget lasts).

    Args:
        types: relationship types to fetch rows for; empty means every type.

    Raises:
        AgentInputError: a type is not declared in schema/.
        EntityNotFoundError: no node has the id ``curie``.
        BudgetExceededError: the budget allowed too few queries for the survey.
    """
    unknown = [t for t in types if t not in agent.schema.types]
    if unknown:
        known = ", ".join(sorted(agent.schema.types))
        raise AgentInputError(f"unknown relationship type(s) {unknown}; known types: {known}")
    runner = QueryRunner(agent.store, budget)
    if not runner.template("api_entity", {"id": curie}, step="neighbourhood:entity"):
        raise EntityNotFoundError(
            f"no node has the id {curie!r}; find ids by name with GET /search?q=<name>"
        )
    twins = same_as(runner, [curie]).equivalents
    seeds = [curie, *twins]
    counted = runner.template("agent_neighbour_counts", {"ids": seeds}, step="neighbourhood:survey")
    survey = [SurveyGroup(**row) for row in counted if not types or row["type"] in types]
    rows: list[NeighbourRow] = []
    for relation, outgoing in _groups(survey):
        if runner.remaining_queries < 1:
            break
        found = runner.template(
            "api_neighbours",
            {"ids": seeds, "type": relation, "outgoing": outgoing, "limit": limit},
            step=f"neighbourhood:{relation}",
        )
        rows += [
            NeighbourRow(
                seed=row["seed"],
                relation=relation,
                outgoing=outgoing,
                neighbour=runner.evidence.nodes[row["node"]["id"]],
                edge=runner.evidence.edges[row["edge"]["id"]],
            )
            for row in found
            # a twin's edge to another seed is a bridge, already in ``twins``
            if row["seed"] == curie or row["node"]["id"] not in seeds
        ]
    evidence = runner.evidence
    return Neighbourhood(
        entity=evidence.nodes[curie],
        twins=[
            Twin(node=evidence.nodes[node], bridge=[evidence.edges[e] for e in twin.edges])
            for node, twin in twins.items()
        ],
        survey=survey,
        # the edges to twins first: a client drawing rows in order names each twin before
        # drawing the twin's own edges
        rows=sorted(rows, key=lambda row: row.neighbour.id not in twins),
        queries=runner.log,
    )


def _groups(survey: list[SurveyGroup]) -> list[tuple[str, bool]]:
    """The (type, direction) groups of the survey, fewest edges first: a wide neighbourhood
    shows many kinds of neighbours before many neighbours of one kind."""
    sizes: dict[tuple[str, bool], int] = {}
    for group in survey:
        key = (group.type, group.outgoing)
        sizes[key] = sizes.get(key, 0) + group.edges
    return sorted(sizes, key=lambda key: (sizes[key], key))
