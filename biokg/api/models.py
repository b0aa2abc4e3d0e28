"""Request and response models of the API that the agent's own models do not already cover.

Answers, candidates and step events are the agent's models (:mod:`biokg.graph_agent.models`),
so the API and the CLI's JSON share one shape. Budget overrides are validated here and capped
by the server's own budget: a client may ask for less graph work, never for more.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from biokg.graph_agent.models import EvidenceEdge, EvidenceNode, QueryRecord
from biokg.graph_agent.runner import Budget

#: The longest question the API takes (the agent itself takes up to 2,000 characters): linking
#: time grows with the text, and a question this long already runs within the request deadline
#: on a loaded 2-core machine; longer is a 422 naming the field.
MAX_QUESTION_CHARS = 500
#: The longest text ``GET /search`` takes: a name, synonym, brand name or id, not a passage.
MAX_SEARCH_CHARS = 200


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BudgetRequest(_Model):
    """Lower limits for one question; each value is capped at the server's limit."""

    max_queries: int | None = Field(None, ge=1, description="graph queries for this question")
    max_rows: int | None = Field(None, ge=1, description="rows returned over all queries")
    max_seconds: float | None = Field(None, gt=0, description="graph time for this question")
    query_timeout_s: float | None = Field(None, gt=0, description="time limit of one query")

    def within(self, ceiling: Budget) -> Budget:
        """The server's budget lowered by the values given here (never raised)."""
        asked = self.model_dump(exclude_none=True)
        return replace(ceiling, **{k: min(v, getattr(ceiling, k)) for k, v in asked.items()})


class AskRequest(_Model):
    """A question, and optionally a smaller budget for answering it."""

    question: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUESTION_CHARS),
    ] = Field(examples=["What does Viagra target?"])
    budget: BudgetRequest | None = None


_SEED = "the record whose edge this is: the entity's id, or one of its twins' (see twins)"


class SurveyGroup(_Model):
    """How many edges of one type and direction join a seed to neighbours of one label."""

    seed: str = Field(description=_SEED)
    type: str
    outgoing: bool = Field(description="true: the seed is the edge's subject")
    label: str
    edges: int


class NeighbourRow(_Model):
    """One edge of the neighbourhood, with its provenance, and the node at its other end."""

    seed: str = Field(description=_SEED)
    relation: str
    outgoing: bool = Field(description="true: the seed is the edge's subject")
    neighbour: EvidenceNode = Field(description="the node at the edge's other end from the seed")
    edge: EvidenceEdge


class Twin(_Model):
    """A record that is the same entity under another source's id, and the SAME_AS edges that
    join it to the entity (two when the bridge runs through a MONDO term)."""

    node: EvidenceNode
    bridge: list[EvidenceEdge]


class Neighbourhood(_Model):
    """An entity's one-hop neighbourhood and its twins': counts per seed and group, then up to
    ``limit`` rows per seed, type and direction."""

    entity: EvidenceNode
    twins: list[Twin]
    survey: list[SurveyGroup]
    rows: list[NeighbourRow]
    queries: list[QueryRecord]


class SourceRelease(_Model):
    """A source that loaded a node, and the release of it the graph holds now."""

    source: str
    version: str | None = None


class EntityDetails(_Model):
    """One entity's card: names, category, cross-references, sources and other properties."""

    id: str
    label: str
    name: str | None = None
    category: str | None = None
    description: str | None = None
    synonyms: list[str]
    xrefs: list[str]
    sources: list[SourceRelease]
    properties: dict[str, Any] = Field(description="the label's own properties (symbol, ...)")
    source_values: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="what each source states of the node (infores id -> its values); the fields "
        "above show the values schema/'s precedence chooses from these",
    )


class LabelDisplay(_Model):
    """How the page draws one label's nodes."""

    color: str = Field(description="fill colour, #RRGGBB")
    caption: str = Field(description="the node property shown as its caption")


class ExplorerConfig(_Model):
    """What the page needs before its first graph call."""

    api_key_required: bool = Field(description="send X-API-Key with every graph call")
    labels: dict[str, LabelDisplay]


class Health(_Model):
    """The engine answered; which database it serves and the loaded source versions."""

    status: Literal["ok"] = "ok"
    engine: str
    database: str
    data_versions: list[dict[str, Any]]


class ErrorBody(_Model):
    """Every error response: a message that says what to do, and the error's class name."""

    error: str
    type: str
    fields: list[str] = Field(default_factory=list, description="offending request fields")
