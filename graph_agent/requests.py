"""Typed research requests: what one planned step asks of the graph.

The planner (and the LLM planner's tools) build these; each kind is handled by exactly one
strategy class (:data:`biokg.graph_agent.strategies.STRATEGIES`). Frozen dataclasses, so a
plan can be logged, compared ("was this already tried?") and streamed as data.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Relation:
    """One relationship type seen from the seed: outgoing (seed is subject) or not."""

    type: str
    outgoing: bool | None
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Chain:
    """Two hops: seed -first- via label -second- one of the target labels; each hop with its
    direction (``None``: either)."""

    first: str
    first_out: bool | None
    via: str
    second: str
    second_out: bool | None
    targets: tuple[str, ...]


@dataclass(frozen=True)
class Focus:
    """How to rank what a step finds: by the question's own words and by the kind asked for.

    ``words``: content words of the question that name no entity ("lysosomal marker"): answers
    whose names share them rank first. ``kinds``: values of a label's ``kinds`` property asked
    for (GO aspect, label section): answers of other kinds are dropped when any fit.
    """

    words: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    #: keep only answers sharing a word with ``words`` (a wide survey the question's words
    #: must narrow: everything else the entity touches is no answer)
    only_relevant: bool = False


@dataclass(frozen=True)
class Request:
    """Base of every request: the reason it was planned, shown in the plan event."""

    why: str = field(default="", kw_only=True)

    def describe(self) -> dict[str, Any]:
        return {"strategy": type(self).__name__, **asdict(self)}


@dataclass(frozen=True)
class Neighbours(Request):
    """Breadth-first: the seeds' one-hop neighbours over ``relations`` (all when empty);
    ``caveat``: said beside what it finds (what was asked and is not what it answers);
    ``decides``: a yes/no question whether the seeds hold any such edge at all ("Is X
    inherited?"): what it finds is the verdict, ``negated`` for a negated question;
    ``values``: the words of a value such a question claims ("recessive"): a node found and
    named by all of them is the verdict, and the caveat is then not said."""

    seeds: tuple[str, ...]
    relations: tuple[Relation, ...] = ()
    focus: Focus = Focus()
    caveat: str | None = None
    decides: bool = False
    negated: bool = False
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChainWalk(Request):
    """Depth-first: ends of a typed two-hop chain from the seeds, ranked by supporting paths."""

    seeds: tuple[str, ...]
    chain: Chain
    focus: Focus = Focus()


@dataclass(frozen=True)
class PathBetween(Request):
    """Depth-first: the shortest path (≤ 4 hops) from each seed to ``target``."""

    seeds: tuple[str, ...]
    target: str


@dataclass(frozen=True)
class Constraint:
    """Answers must touch one of ``ids`` (or, for ontology terms, a descendant) over one of
    ``types``."""

    ids: tuple[str, ...]
    types: tuple[str, ...]
    descendants: bool = False
    #: ``ids`` are the edges' subjects (True) or objects (False); None: either end
    outgoing: bool | None = None
    #: pathway ids an edge's ``pathway`` property must name (empty: any edge)
    within: tuple[str, ...] = ()


@dataclass(frozen=True)
class Intersection(Request):
    """Nodes of the ``targets`` labels that meet several constraints at once ("genes annotated
    with X that also have phenotype Y"), ranked by how many they meet."""

    targets: tuple[str, ...]
    constraints: tuple[Constraint, ...]
    focus: Focus = Focus()


@dataclass(frozen=True)
class ClaimCheck(Request):
    """A yes/no question or a statement: is there an edge, or a two-hop path, between the
    subjects and the objects (objects' subtypes included)? ``held``: the relationships to show
    for subjects the claim does not hold for, when it holds for others (an ambiguous name).
    ``through``: relationships the question names that leave the subjects but reach no
    object's kind; a path whose first step takes one meets the claim (a drug "targets a
    kinase" when its target gene has a kinase function). ``values``: relationships whose far
    end is a value (schema/ ``value_phrases``: a mode of inheritance); a path through such a
    value says only that two nodes share it, so it meets no claim."""

    subjects: tuple[str, ...]
    objects: tuple[str, ...]
    types: tuple[str, ...] = ()
    negated: bool = False
    held: tuple[Relation, ...] = ()
    through: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Attribute(Request):
    """A property of the nodes themselves ("the brand names of X", "the UNII of X")."""

    nodes: tuple[str, ...]
    property: str
    prefixes: tuple[str, ...] = ()


@dataclass(frozen=True)
class LabelText(Request):
    """Passages of the drugs' label sections that answer ``question`` (the asked ``sections``
    first)."""

    drugs: tuple[str, ...]
    question: str
    sections: tuple[str, ...] = ()
