"""Neo4j Browser files generated from schema/ and cypher/: a guide and a GraSS style sheet.

The guide (``cypher/browser_guide.html``) is an HTML Browser guide, played with
``:play <url>`` (or ``:guide <url>`` in the guide drawer) from any host Browser may fetch from
(``browser.remote_content_hostname_whitelist``). Its first slide is the schema (labels with
their Biolink class and colour, relationship types with their predicates); each further slide
is one example query from ``cypher/guide_*.cypher``: a ``:params`` block to run first, then the
query. Every query runs unchanged on Neo4j and on the embedded engine. Where the engines differ
(index names: the dialect layer's, DESIGN §3) the query takes the names as parameters
(``$indexes`` for full-text search, a list: the embedded engine has one index per property, e.g.
``Drug[name]`` and ``Drug[synonymsbyitem]``, where Neo4j has ``drug_fulltext``; ``$index`` for
vector search), and the slide gives one ``:params`` block per engine, each under a
``<p data-engine="...">`` heading; a block without one serves both engines. The test suite runs
every slide's statements, read from the rendered HTML, on the embedded engine.

The style sheet (``cypher/style.grass``) gives every label its colour and caption from
schema/'s ``display``; drag it onto Browser's canvas, or ``:style`` and paste it.

Example files start with comment lines: ``// title:``, ``// params: {json}``, optionally
``// index: fulltext|vector Label``, then a description, then the query.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from biokg import cypher
from biokg.core.store.dialect import ARCADEDB, NEO4J, Dialect
from biokg.errors import SchemaError
from biokg.schema import GraphSchema

GUIDE_PREFIX = "guide_"
#: The engines a slide gives ``:params`` for, with the heading each block gets.
ENGINES: dict[str, tuple[Dialect, str]] = {
    NEO4J.name: (NEO4J, "On Neo4j:"),
    ARCADEDB.name: (ARCADEDB, "On biokg's embedded engine (ArcadeDB):"),
}
_GENERATED = (
    "Generated from schema/ and cypher/guide_*.cypher by `biokg schema cypher`; do not edit."
)


@dataclass(frozen=True)
class GuideExample:
    """One example query of the guide, with the parameters that make it return rows."""

    name: str
    title: str
    description: str
    params: dict[str, Any]
    index: tuple[str, str] | None  # (fulltext | vector, label): $indexes | $index
    query: str

    def params_for(self, dialect: Dialect, schema: GraphSchema) -> dict[str, Any]:
        """The parameters on ``dialect``'s engine: the example's own, plus for a full-text
        example ``indexes`` (every full-text index over the label: one on Neo4j, one per
        property on the embedded engine, whose rows together are the Neo4j index's) and for a
        vector example ``index``."""
        if self.index is None:
            return dict(self.params)
        kind, label = self.index
        if kind == "vector":
            return {**self.params, "index": dialect.vector_index_name(label)}
        return {**self.params, "indexes": dialect.fulltext_index_names(schema, label)}


def guide_examples(schema: GraphSchema) -> list[GuideExample]:
    """The examples of ``cypher/guide_*.cypher``, in file-name order.

    Raises:
        SchemaError: a file lacks its title or params line, or names an unknown index.
    """
    labels = set(schema.labels)
    return [
        _parse(name, cypher.load(name), labels)
        for name in cypher.names()
        if name.startswith(GUIDE_PREFIX)
    ]


def _parse(name: str, text: str, schema_labels: set[str]) -> GuideExample:
    meta: dict[str, str] = {}
    description: list[str] = []
    lines = text.splitlines()
    while lines and lines[0].startswith("//"):
        line = lines.pop(0)[2:].strip()
        key, sep, value = line.partition(":")
        if sep and key in ("title", "params", "index"):
            meta[key] = value.strip()
        else:
            description.append(line)
    if "title" not in meta or "params" not in meta:
        raise SchemaError(f"cypher/{name}.cypher: needs '// title:' and '// params:' lines first")
    index = None
    if "index" in meta:
        kind, _, label = meta["index"].partition(" ")
        if kind not in ("fulltext", "vector") or label not in schema_labels:
            raise SchemaError(
                f"cypher/{name}.cypher: '// index:' wants 'fulltext <Label>' or 'vector <Label>'"
                f" with a schema/ label, found {meta['index']!r}"
            )
        index = (kind, label)
    return GuideExample(
        name=name,
        title=meta["title"],
        description=" ".join(description),
        params=json.loads(meta["params"]),
        index=index,
        query="\n".join(lines).strip(),
    )


def render_guide(schema: GraphSchema, examples: list[GuideExample]) -> str:
    """The Browser guide: a schema slide, then one slide per example."""
    slides = [_schema_slide(schema)]
    for example in examples:
        per_engine = {
            name: example.params_for(dialect, schema) for name, (dialect, _) in ENGINES.items()
        }
        if all(params == example.params for params in per_engine.values()):
            param_blocks = _runnable(_params_command(example.params))
        else:
            param_blocks = "".join(
                f'<p data-engine="{name}">{html.escape(ENGINES[name][1])}</p>\n'
                + _runnable(_params_command(params))
                for name, params in per_engine.items()
            )
        slides.append(
            _slide(example.title, example.description, param_blocks + _runnable(example.query))
        )
    body = "\n".join(slides)
    return (
        f"<!-- {_GENERATED} Play with :play <url of this file>. -->\n"
        '<article class="guide">\n<carousel class="deck container-fluid">\n'
        f"{body}\n</carousel>\n</article>\n"
    )


def _params_command(params: dict[str, Any]) -> str:
    return ":params " + json.dumps(params, indent=2)


def _schema_slide(schema: GraphSchema) -> str:
    labels = "".join(
        f'<tr><td><span style="color:{spec.display.color}">&#9679;</span> :{label}</td>'
        f"<td>{html.escape(spec.category)}</td><td>{html.escape(', '.join(spec.id_prefixes))}"
        "</td></tr>"
        for label, spec in sorted(schema.labels.items())
    )
    types = "".join(
        f"<tr><td>:{name}</td><td>{html.escape(spec.qualified_predicate)}</td>"
        f"<td>{', '.join(spec.from_labels)} &#8594; {', '.join(spec.to_labels)}</td></tr>"
        for name, spec in sorted(schema.types.items())
    )
    provenance = ", ".join(schema.provenance.required)
    content = (
        "<p>Every entity node carries <code>:Entity</code> and one label below, with a CURIE "
        f"<code>id</code>. Every edge carries its provenance: <code>{provenance}</code>, one "
        "edge per source.</p>"
        "<p>Every query of this guide runs unchanged on Neo4j and on biokg's embedded engine. "
        "Run a slide's <code>:params</code> first; where the engines name their indexes "
        "differently, the slide has one <code>:params</code> block per engine. On the embedded "
        "engine, send the query with its block's parameters from any Bolt client (e.g. biokg's "
        "MCP tool <code>read_cypher</code>).</p>"
        f"<table class='table table-condensed'><tr><th>label</th><th>Biolink class</th>"
        f"<th>id prefixes</th></tr>{labels}</table>"
        f"<table class='table table-condensed'><tr><th>type</th><th>Biolink predicate</th>"
        f"<th>from &#8594; to</th></tr>{types}</table>"
    )
    return _slide("The biokg graph", "Labels and relationship types, from schema/.", content)


def _slide(title: str, lead: str, content: str) -> str:
    return (
        '<slide class="row-fluid">\n<div class="col-sm-3">\n'
        f'<h3>{html.escape(title)}</h3>\n<p class="lead">{html.escape(lead)}</p>\n</div>\n'
        f'<div class="col-sm-9">\n{content}\n</div>\n</slide>'
    )


def _runnable(text: str) -> str:
    return f'<pre class="pre-scrollable code runnable">{html.escape(text)}</pre>\n'


def render_grass(schema: GraphSchema) -> str:
    """Neo4j Browser's style sheet: colour and caption per label, type names on edges."""
    nodes = "".join(
        f"node.{label} {{\n  color: {spec.display.color};\n  border-color: #444444;\n"
        f"  text-color-internal: #000000;\n  caption: '{{{spec.display.caption}}}';\n}}\n"
        for label, spec in sorted(schema.labels.items())
    )
    edges = "relationship {\n  color: #A5ABB6;\n  caption: '<type>';\n}\n"
    return f"/* {_GENERATED} */\nnode {{\n  diameter: 50px;\n}}\n{nodes}{edges}"


def browser_files(schema: GraphSchema) -> dict[str, str]:
    """``browser_guide.html`` and ``style.grass`` for cypher/ (``biokg schema cypher``)."""
    return {
        "browser_guide.html": render_guide(schema, guide_examples(schema)),
        "style.grass": render_grass(schema),
    }
