"""The graph schema as data: labels, relationship types, prefixes and provenance, from YAML.

One schema drives the constraints, the index DDL, the record validator, the Cypher name
whitelist and the Markdown summary (docs and, later, the agent's prompt). Unknown keys, unknown
labels and unknown types are errors naming the file and entry, never silently dropped.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from biokg.errors import SchemaError

PropertyType = Literal["str", "int", "float", "bool", "str[]"]
_LABEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_REL_TYPE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_PROPERTY = re.compile(r"^[a-z][a-z0-9_]*$")
#: bioregistry keys of prefixes that are ours (prefixes.yaml): no registry resolves them
LOCAL_KEY = "biokg."
#: The label every entity node carries beside its own (nodes.yaml).
ENTITY = "Entity"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class KindsSpec(_Strict):
    """A property whose values split a label into kinds people ask for by name."""

    property: str
    values: dict[str, tuple[str, ...]]


class DisplaySpec(_Strict):
    """How viewers draw a label's nodes: a fill colour and the property used as caption."""

    color: str = Field(pattern=r"^#[0-9A-Fa-f]{6}$")
    caption: str


class LabelSpec(_Strict):
    """One node label: Biolink category, allowed id prefixes, properties, indexed text."""

    category: str
    display: DisplaySpec
    id_prefixes: tuple[str, ...]
    properties: dict[str, PropertyType]
    fulltext: tuple[str, ...]
    embed: tuple[str, ...]
    nouns: tuple[str, ...]
    kinds: KindsSpec | None = None
    #: False: questions never name these nodes by their own names (label sections, reached
    #: through their label and kind), so the linker's lexicon leaves them out.
    named: bool = True


class Paraphrases(_Strict):
    """Other ways people ask about a relationship, per direction: read only by the paraphrase
    matcher (graph_agent/paraphrase.py), never as cue phrases, and never asked by the eval."""

    forward: tuple[str, ...] = ()
    inverse: tuple[str, ...] = ()


class EndWords(_Strict):
    """Words that say which end of a type joining a label to itself a question asks for, read
    where a sentence vector cannot tell (it places "wider" beside "narrower", "contains" beside
    "is contained in"). Lemmas; an entry of several words is a run of lemmas.

    ``subject`` and ``object`` describe one end (a narrower term, a part; a broader term, a
    whole). ``subject_first`` words put the edge's subject before them ("A falls under B": A is
    the narrower term), ``object_first`` words its object ("A covers B")."""

    subject: tuple[str, ...]
    object: tuple[str, ...]
    subject_first: tuple[str, ...]
    object_first: tuple[str, ...]


class QuestionWordings(_Strict):
    """Question templates about a relationship; ``{name}`` is the asked-about entity's name."""

    forward: tuple[str, ...]
    inverse: tuple[str, ...]
    describe_forward: str
    describe_inverse: str
    #: a yes/no question whether ``{name}`` holds the type's edge to ``{object}``: the eval's and
    #: tests' verification wording
    verify: str
    paraphrases: Paraphrases = Paraphrases()
    #: types that answer the same questions from another source (a drug's side effects from its
    #: label and from FAERS reports): the paraphrase matcher tries them right after this one
    also_answered_by: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _name_placeholder(self) -> QuestionWordings:
        wordings = (
            *self.forward,
            *self.inverse,
            self.describe_forward,
            self.describe_inverse,
            *self.paraphrases.forward,
            *self.paraphrases.inverse,
        )
        missing = [q for q in wordings if "{name}" not in q]
        if missing:
            raise ValueError(f"question wordings without a {{name}} placeholder: {missing}")
        if not {"{name}", "{object}"} <= set(re.findall(r"\{\w+\}", self.verify)):
            raise ValueError(f"verify wording {self.verify!r} needs {{name}} and {{object}}")
        return self


class RelationshipSpec(_Strict):
    """One relationship type: Biolink predicate, endpoint labels, properties, identity keys."""

    predicate: str
    #: Biolink qualifier slot → value that completes the predicate for every edge of the type
    #: (``object_direction_qualifier: downregulated`` for a negative regulation), written by
    #: the exports beside ``predicate``; not stored on edges
    predicate_qualifiers: dict[str, str] = Field(default_factory=dict)
    from_labels: tuple[str, ...] = Field(alias="from")
    to_labels: tuple[str, ...] = Field(alias="to")
    properties: dict[str, PropertyType]
    qualifiers: tuple[str, ...]
    phrases: tuple[str, ...]
    inverse_phrases: tuple[str, ...]
    #: phrases that name values of the type as they cue it ("dominant"): see relationships.yaml
    value_phrases: tuple[str, ...] = ()
    questions: QuestionWordings
    #: for a type joining a label to itself: the words that say which end is asked for
    ends: EndWords | None = None

    @property
    def qualified_predicate(self) -> str:
        """The predicate with its qualifiers, as docs show it."""
        return self.predicate + "".join(
            f" ({slot}: {value})" for slot, value in self.predicate_qualifiers.items()
        )

    @model_validator(mode="after")
    def _qualifiers_are_properties(self) -> RelationshipSpec:
        missing = [q for q in self.qualifiers if q not in self.properties]
        if missing:
            raise ValueError(f"qualifiers {missing} are not declared in properties")
        stray = [p for p in self.value_phrases if p not in self.phrases]
        if stray:
            raise ValueError(f"value_phrases {stray} are not among the type's phrases")
        clashing = [q for q in self.predicate_qualifiers if q in self.properties]
        if clashing:
            raise ValueError(f"predicate_qualifiers {clashing} are also edge properties")
        if self.ends is not None and not set(self.from_labels) & set(self.to_labels):
            raise ValueError("ends: only a type that joins a label to itself has two ends alike")
        return self


class ProvenanceSpec(_Strict):
    required: dict[str, PropertyType]
    optional: dict[str, PropertyType]


class PrecedenceSpec(_Strict):
    """Which source's value a node shows when several assert it (nodes.yaml ``precedence``)."""

    default: tuple[str, ...]
    labels: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: ``Label.property`` → its own order, overriding the label's
    properties: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    def order(self, label: str, prop: str | None = None) -> tuple[str, ...]:
        """The sources in precedence order for ``label`` (and ``prop``), first wins."""
        if prop is not None and f"{label}.{prop}" in self.properties:
            return self.properties[f"{label}.{prop}"]
        return self.labels.get(label, self.default)


class _NodesFile(_Strict):
    entity: dict[str, PropertyType]
    labels: dict[str, LabelSpec]
    asked_properties: dict[str, tuple[str, ...]]
    answer_groups: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    precedence: PrecedenceSpec


class _PrefixesFile(_Strict):
    resolver: str = Field(pattern=r"^https://[^{}]*\{key\}[^{}]*\{id\}$")
    prefixes: dict[str, str]


class _RelationshipsFile(_Strict):
    provenance: ProvenanceSpec
    types: dict[str, RelationshipSpec]
    not_held: dict[str, tuple[str, ...]]
    not_held_questions: tuple[str, ...] = ()


#: The Biolink category of documents about entities (see :attr:`GraphSchema.document_labels`).
DOCUMENT_CATEGORY = "biolink:InformationContentEntity"


class GraphSchema(_Strict):
    """The whole schema; build it with :func:`load_schema`."""

    entity: dict[str, PropertyType]
    labels: dict[str, LabelSpec]
    provenance: ProvenanceSpec
    types: dict[str, RelationshipSpec]
    prefixes: dict[str, str]
    #: which source's value a node shows (nodes.yaml ``precedence``)
    precedence: PrecedenceSpec
    #: where a CURIE resolves for people, ``{key}`` its bioregistry key (prefixes.yaml)
    resolver: str
    #: property → what people call it in questions (nodes.yaml ``asked_properties``)
    asked_properties: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: Biolink mixin → labels whose nodes answer for one another (nodes.yaml ``answer_groups``)
    answer_groups: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: topic → how people ask for it; no source holds it (relationships.yaml ``not_held``)
    not_held: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: whole questions no relationship answers, ``{name}`` the entity (``not_held_questions``)
    not_held_questions: tuple[str, ...] = ()

    @property
    def records_digest(self) -> str:
        """Digest of what shapes loaded records (labels' categories, id prefixes and properties;
        types' endpoints, properties and qualifiers; provenance; prefixes), not of how people
        ask nor of how exports name a type (its Biolink predicate is not stored on edges): a
        change here reloads sources, a new question wording or predicate does not."""
        shape = {
            "entity": self.entity,
            "labels": {
                n: (s.category, s.id_prefixes, s.properties) for n, s in self.labels.items()
            },
            "types": {
                n: (s.from_labels, s.to_labels, s.properties, s.qualifiers)
                for n, s in self.types.items()
            },
            "provenance": self.provenance.model_dump(),
            "prefixes": self.prefixes,
            "precedence": self.precedence.model_dump(),
        }
        text = json.dumps(shape, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def resolvers(self) -> dict[str, str]:
        """Prefix → the URL its ids resolve at, ``{id}`` standing for the local id; our own
        prefixes (bioregistry key under ``biokg.``) resolve nowhere and are left out."""
        return {
            prefix: self.resolver.replace("{key}", key)
            for prefix, key in self.prefixes.items()
            if not key.startswith(LOCAL_KEY)
        }

    @property
    def kind_properties(self) -> list[str]:
        """The properties labels declare as ``kinds`` (GO namespace, label section)."""
        return sorted({spec.kinds.property for spec in self.labels.values() if spec.kinds})

    def label(self, name: str) -> LabelSpec:
        """The spec of a node label; raises SchemaError for a label schema/ does not declare."""
        try:
            return self.labels[name]
        except KeyError:
            raise SchemaError(
                f"label {name!r} is not declared in schema/nodes.yaml "
                f"(declared: {', '.join(sorted(self.labels))})"
            ) from None

    def relationship(self, name: str) -> RelationshipSpec:
        """The spec of a relationship type; raises SchemaError for an undeclared type."""
        try:
            return self.types[name]
        except KeyError:
            raise SchemaError(
                f"relationship type {name!r} is not declared in schema/relationships.yaml "
                f"(declared: {', '.join(sorted(self.types))})"
            ) from None

    @property
    def document_labels(self) -> frozenset[str]:
        """Labels whose nodes are documents about entities (openFDA labels and their sections):
        what the agent reads and quotes, not what a question names."""
        return frozenset(n for n, spec in self.labels.items() if spec.category == DOCUMENT_CATEGORY)

    def answers_for(self, label: str) -> frozenset[str]:
        """The labels whose nodes answer a question asking for ``label`` by its noun: the label,
        its ``answer_groups`` fellows and documents, which answer in the words they quote."""
        fellows = {label}.union(*(g for g in self.answer_groups.values() if label in g))
        return frozenset(fellows) | self.document_labels

    def node_properties(self, label: str) -> dict[str, PropertyType]:
        return {**self.entity, **self.label(label).properties}

    def edge_properties(self, rel_type: str) -> dict[str, PropertyType]:
        spec = self.relationship(rel_type)
        return {
            "id": "str",
            **self.provenance.required,
            **self.provenance.optional,
            **spec.properties,
        }

    @model_validator(mode="after")
    def _names_and_references(self) -> GraphSchema:
        problems: list[str] = [
            f"relationships.yaml: not_held_questions {q!r} has no {{name}} placeholder"
            for q in self.not_held_questions
            if "{name}" not in q
        ]
        for label, spec in self.labels.items():
            if not _LABEL.match(label):
                problems.append(f"nodes.yaml: label {label!r} is not PascalCase")
            unknown = [p for p in spec.id_prefixes if p not in self.prefixes]
            if unknown:
                problems.append(f"nodes.yaml: {label}.id_prefixes {unknown} not in prefixes.yaml")
            known = {**self.entity, **spec.properties}
            for key in ("fulltext", "embed"):
                bad = [p for p in getattr(spec, key) if p not in known]
                if bad:
                    problems.append(f"nodes.yaml: {label}.{key} names undeclared properties {bad}")
            if spec.display.caption not in known:
                problems.append(
                    f"nodes.yaml: {label}.display.caption names undeclared property "
                    f"{spec.display.caption!r}"
                )
            if spec.kinds is not None and spec.kinds.property not in known:
                problems.append(
                    f"nodes.yaml: {label}.kinds names undeclared property {spec.kinds.property!r}"
                )
        for label in self.precedence.labels:
            if label not in self.labels:
                problems.append(f"nodes.yaml: precedence names unknown label {label!r}")
        for group, members in self.answer_groups.items():
            unknown = [label for label in members if label not in self.labels]
            if unknown:
                problems.append(f"nodes.yaml: answer_groups.{group} names unknown labels {unknown}")
        for key in self.precedence.properties:
            label, _, prop = key.partition(".")
            if label not in self.labels or prop not in self.node_properties(label):
                problems.append(f"nodes.yaml: precedence.properties {key!r} is no Label.property")
        declared = set(self.entity).union(*(spec.properties for spec in self.labels.values()))
        bad = sorted(set(self.asked_properties) - declared)
        if bad:
            problems.append(f"nodes.yaml: asked_properties names undeclared properties {bad}")
        for rel, spec in self.types.items():
            if not _REL_TYPE.match(rel):
                problems.append(f"relationships.yaml: type {rel!r} is not UPPER_SNAKE")
            for end in (*spec.from_labels, *spec.to_labels):
                if end not in self.labels:
                    problems.append(f"relationships.yaml: {rel} names unknown label {end!r}")
            for other in spec.questions.also_answered_by:
                if other not in self.types or self.types[other].from_labels != spec.from_labels:
                    problems.append(
                        f"relationships.yaml: {rel}.questions.also_answered_by {other!r} is no "
                        "type leaving the same labels"
                    )
        names = [*self.entity, *self.provenance.required, *self.provenance.optional]
        for spec in self.labels.values():
            names.extend(spec.properties)
        for spec in self.types.values():
            names.extend(spec.properties)
        problems.extend(
            f"property {n!r} is not snake_case" for n in names if not _PROPERTY.match(n)
        )
        if problems:
            raise ValueError("; ".join(problems))
        return self


#: libyaml's safe loader where PyYAML was built with it: the schema is read by every CLI
#: process (pure Python: 56 ms for the three files, libyaml: 6 ms)
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except yaml.YAMLError as err:
        raise SchemaError(f"{path}: not valid YAML: {err}") from err
    if not isinstance(data, dict):
        raise SchemaError(f"{path}: expected a mapping at the top level")
    return data


def load_schema(directory: Path | None = None) -> GraphSchema:
    """Load and validate schema/*.yaml.

    Args:
        directory: a folder with nodes.yaml, relationships.yaml and prefixes.yaml; defaults to the
            packaged schema.

    Raises:
        SchemaError: a file is missing, malformed, has unknown keys or dangling references; the
            message names the file and the entry.
    """
    if directory is None:
        return _packaged_schema()
    return _load(Path(directory))


@cache
def _packaged_schema() -> GraphSchema:
    return _load(Path(str(files(__name__))))


def _load(directory: Path) -> GraphSchema:
    parsed: dict[str, BaseModel | dict] = {}
    for name, model in (
        ("nodes", _NodesFile),
        ("relationships", _RelationshipsFile),
        ("prefixes", _PrefixesFile),
    ):
        path = directory / f"{name}.yaml"
        try:
            parsed[name] = model.model_validate(_read_yaml(path))
        except ValidationError as err:
            raise SchemaError(f"{path}: {_describe(err)}") from err
        except FileNotFoundError as err:
            raise SchemaError(f"{path}: missing schema file") from err
    nodes, rels, prefixes = parsed["nodes"], parsed["relationships"], parsed["prefixes"]
    try:
        return GraphSchema(
            entity=nodes.entity,
            labels=nodes.labels,
            provenance=rels.provenance,
            types=rels.types,
            prefixes=prefixes.prefixes,
            resolver=prefixes.resolver,
            asked_properties=nodes.asked_properties,
            answer_groups=nodes.answer_groups,
            precedence=nodes.precedence,
            not_held=rels.not_held,
            not_held_questions=rels.not_held_questions,
        )
    except ValidationError as err:
        raise SchemaError(f"{directory}: {_describe(err)}") from err


def _describe(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '<top>'}: {e['msg']}" for e in err.errors()
    )


def render_markdown(schema: GraphSchema) -> str:
    """The schema as Markdown: for docs/schema.md and, later, the agent's schema prompt."""
    out = [
        "# biokg graph schema",
        "",
        "Generated from schema/*.yaml by `biokg schema docs`; do not edit by hand.",
        "",
        "## Node labels",
        "",
        "Every entity node has `:Entity` plus one label below, and the properties "
        + ", ".join(f"`{k}` ({v})" for k, v in schema.entity.items())
        + ".",
        "",
        "| label | Biolink category | id prefixes | extra properties | full-text | embedded |",
        "|---|---|---|---|---|---|",
    ]
    for label, spec in sorted(schema.labels.items()):
        props = ", ".join(f"`{k}` ({v})" for k, v in spec.properties.items()) or "-"
        out.append(
            f"| {label} | {spec.category} | {', '.join(spec.id_prefixes)} | {props} | "
            f"{', '.join(spec.fulltext)} | {', '.join(spec.embed)} |"
        )
    groups = "; ".join(f"{g}: {', '.join(labels)}" for g, labels in schema.answer_groups.items())
    out += ["", f"Labels that answer for one another when a question asks for one: {groups}."]
    required = ", ".join(f"`{k}`" for k in schema.provenance.required)
    optional = ", ".join(f"`{k}`" for k in schema.provenance.optional)
    out += [
        "",
        "## Relationship types",
        "",
        f"Every edge has `id` and provenance: {required} (required), {optional} (when known). "
        "The edge id is a hash of source, subject, type, object and the type's qualifiers.",
        "",
        "| type | Biolink predicate | from | to | properties | qualifiers | asked as |",
        "|---|---|---|---|---|---|---|",
    ]
    for rel, spec in sorted(schema.types.items()):
        props = ", ".join(f"`{k}` ({v})" for k, v in spec.properties.items()) or "-"
        out.append(
            f"| {rel} | {spec.qualified_predicate} | {', '.join(spec.from_labels)} | "
            f"{', '.join(spec.to_labels)} | {props} | {', '.join(spec.qualifiers) or '-'} | "
            f"{(spec.questions.forward or spec.questions.inverse or ('-',))[0]} |"
        )
    out += [
        "",
        "## How questions are read",
        "",
        "The agent's planner reads these by lemma (see `graph_agent/intent.py`).",
        "",
        "| label | kinds (property: value: phrases) |",
        "|---|---|",
    ]
    for label, spec in sorted(schema.labels.items()):
        if spec.kinds is not None:
            values = "; ".join(
                f"{value}: {', '.join(phrases[:4])}" for value, phrases in spec.kinds.values.items()
            )
            out.append(f"| {label} | `{spec.kinds.property}`: {values} |")
    out += ["", "| type | also answered by (another source, tried right after it) |", "|---|---|"]
    out += [
        f"| {rel} | {', '.join(spec.questions.also_answered_by)} |"
        for rel, spec in sorted(schema.types.items())
        if spec.questions.also_answered_by
    ]
    out += ["", "| property asked for | phrases |", "|---|---|"]
    out += [f"| `{p}` | {', '.join(phrases)} |" for p, phrases in schema.asked_properties.items()]
    out += ["", "| topic no source holds | phrases |", "|---|---|"]
    out += [f"| {t} | {', '.join(phrases)} |" for t, phrases in schema.not_held.items()]
    out += [
        "",
        "## Which source a node shows",
        "",
        "Every source's values stay on the node in `source_facts`; scalars show the first source "
        "below that states them, lists are unions in this order, stubs rank last "
        "(docs/decisions/0016-node-facts.md).",
        "",
        "| label | sources, first wins |",
        "|---|---|",
    ]
    out += [
        f"| {label} | {', '.join(schema.precedence.order(label))} |"
        for label in sorted(schema.labels)
    ]
    out += [
        f"| {key} | {', '.join(order)} |" for key, order in schema.precedence.properties.items()
    ]
    out += ["", "## CURIE prefixes", "", "| prefix | bioregistry |", "|---|---|"]
    out += [f"| {p} | {k} |" for p, k in sorted(schema.prefixes.items())]
    return "\n".join(out) + "\n"
