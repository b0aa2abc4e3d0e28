"""The agent's public data: linked candidates, queries run, evidence, claims and the answer.

Pydantic models, so the CLI's ``--json`` output, the API's responses and the stream's events
share one shape. Raw query rows never appear here: the evidence graph holds what rows returned,
the query log holds how they were obtained.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: Candidate rules of the engine's index searches: found by meaning or shared words, not by a
#: name of the lexicon.
SEARCH_RULES = frozenset({"fulltext", "vector"})


class Candidate(_Model):
    """A graph node a piece of text may mean, with how it was matched and a score in [0, 1]."""

    id: str
    label: str
    name: str
    score: float
    rule: str = Field(
        description="id, xref, name, synonym, name-salt, base (a disease title without its "
        "qualifiers), fuzzy, fulltext, vector; namesake: "
        "another node with the exact name of a candidate, form: a numbered or qualified form "
        "of a disease "
        "candidate ('Bartter syndrome, type 3'): alternatives only"
    )
    matched: str = Field(description="the node's name, synonym or id that matched")
    probability: float | None = Field(
        default=None,
        description="the linking scorer's probability that the span means this node (the "
        "candidates of a mention are ranked by it; None where the scorer did not judge the span)",
    )


class Mention(_Model):
    """A span of the question and the candidates it links to (several: ambiguous)."""

    text: str
    candidates: list[Candidate]
    alternatives: list[Candidate] = Field(
        default_factory=list,
        description="nodes the span names exactly that rank below the candidates (a drug label "
        "titled like the drug), then other nodes with a candidate's exact name (Hypertension "
        "the phenotype and the disease): tried when the candidates fit or find nothing",
    )
    weak: bool = Field(
        default=False,
        description="a single common English word or a short alias ('lead', 'RA'): the "
        "question's subject only when nothing more specific was named",
    )
    tokens: tuple[int, int] | None = Field(
        default=None,
        description="the question's words it covers: the first and the one after the last, "
        "counted from 0 (none for a name given apart from a question)",
    )
    rejected: list[Candidate] = Field(
        default_factory=list,
        description="for a name not in the graph: the guesses (respellings, index hits) the "
        "linking scorer judged too far from it, best first; shown to the reader as the "
        "closest names, never searched",
    )

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1


class QueryRecord(_Model):
    """One query the agent ran: text, parameters, rows returned and time."""

    step: str
    cypher: str
    params: dict[str, Any]
    rows: int
    ms: float
    error: str | None = None


class EvidenceNode(_Model):
    """A node a query returned: its id, label and the names people use for it."""

    id: str
    label: str
    name: str | None = None
    symbol: str | None = None
    brand_names: list[str] = Field(default_factory=list)
    kind: str | None = Field(
        default=None, description="the value of its label's `kinds` property (a GO aspect)"
    )
    sources: list[str] = Field(
        default_factory=list,
        description="sources that loaded it (when a claim cites the node "
        "itself, e.g. for one of its properties)",
    )


class EvidenceEdge(_Model):
    """A relationship a query returned, with the provenance a citation points at."""

    id: str
    type: str
    subject: str
    object: str
    source: str
    source_version: str
    source_record: str
    properties: dict[str, Any] = Field(default_factory=dict)


class EvidenceView(_Model):
    nodes: list[EvidenceNode]
    edges: list[EvidenceEdge]


class SourceRecord(_Model):
    """Where one cited edge (or, for a node's own property, the node) comes from."""

    edge_id: str | None = None
    node_id: str | None = None
    source: str
    source_version: str
    source_record: str


class Claim(_Model):
    """One short statement and exactly the evidence it rests on."""

    text: str
    node_ids: list[str]
    edge_ids: list[str]
    sources: list[SourceRecord]
    conflict: bool = False


class Answer(_Model):
    """What ``ask`` returns (CLI ``--json``, API ``/ask``)."""

    question: str
    status: Literal["answered", "not_found"]
    verdict: Literal["yes", "no"] | None = Field(
        default=None,
        description="for a yes/no question or a statement: what the graph's edges say "
        "(status not_found: the graph holds nothing either way)",
    )
    summary: str
    planner: str
    claims: list[Claim]
    answers: list[EvidenceNode] = Field(
        description="the entities that answer the question, best first"
    )
    mentions: list[Mention]
    evidence: EvidenceView
    queries: list[QueryRecord]
    timings: dict[str, float]
    data_versions: list[dict[str, Any]]


class Linked(_Model):
    """What linking found: every mention, and how long it took."""

    mentions: list[Mention]
    ms: float


class PlannedStep(_Model):
    """One research step the plan holds: its strategy and why it was planned."""

    strategy: str
    why: str


#: What a question requests, as the understanding stage reads it before linking
#: (:meth:`biokg.graph_agent.intent.QuestionReader.understand`).
RequestKind = Literal[
    "look-up", "verification", "attribute", "path", "shared", "absence", "not-held", "diagnosis"
]


class PlanView(_Model):
    """What the planner made of the question, before any research ran."""

    planner: str
    #: the kind of request the question was read as
    request: RequestKind
    kind: str
    polar: bool
    relations: list[str]
    target_labels: list[str]
    kinds: list[str]
    #: per linked mention, the node ids research starts from
    seeds: list[list[str]]
    stop: str | None
    steps: list[PlannedStep]


class Progress(_Model):
    """A research step found something: how many findings."""

    found: int


class LinkingEvent(_Model):
    kind: Literal["linking"] = "linking"
    data: Linked


class PlanEvent(_Model):
    kind: Literal["plan"] = "plan"
    data: PlanView


class QueryEvent(_Model):
    kind: Literal["query"] = "query"
    data: QueryRecord


class PartialEvent(_Model):
    kind: Literal["partial"] = "partial"
    data: Progress


class AnswerEvent(_Model):
    kind: Literal["answer"] = "answer"
    data: Answer


#: One step of answering, yielded as it happens (the API streams these as SSE, named by
#: ``kind``, with ``data`` as JSON); the last is the answer.
StepEvent = Annotated[
    LinkingEvent | PlanEvent | QueryEvent | PartialEvent | AnswerEvent,
    Field(discriminator="kind"),
]
