"""An entity's one-hop neighbourhood, by the agent's own breadth search.

The same :class:`BreadthSearch` the agent researches with (survey first, then rows per
relationship type and direction, each group capped), run through a :class:`QueryRunner`, so the
work is budgeted and logged and every row carries its edge's provenance from the evidence graph.
"""

from __future__ import annotations

from biokg.api.models import Neighbourhood, NeighbourRow, SurveyGroup
from biokg.errors import AgentInputError, EntityNotFoundError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.requests import Neighbours, Relation
from biokg.graph_agent.research import BreadthSearch
from biokg.graph_agent.runner import Budget, QueryRunner


def neighbourhood(
    agent: GraphAgent, curie: str, *, types: list[str], limit: int, budget: Budget
) -> Neighbourhood:
    """The survey of ``curie``'s neighbours and up to ``limit`` edges per type and direction.

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
    relations = tuple(Relation(t, None, ()) for t in types)
    result = BreadthSearch(rows_per_group=limit).run(runner, Neighbours((curie,), relations))
    nodes = runner.evidence.nodes
    return Neighbourhood(
        entity=nodes[curie],
        survey=[
            SurveyGroup(type=g["type"], outgoing=g["outgoing"], label=g["label"], edges=g["edges"])
            for g in result.survey
        ],
        rows=[
            NeighbourRow(
                relation=edge.type,
                outgoing=edge.subject == curie,
                neighbour=nodes[edge.object if edge.subject == curie else edge.subject],
                edge=edge,
            )
            for edge in runner.evidence.edges.values()
        ],
        queries=runner.log,
    )
