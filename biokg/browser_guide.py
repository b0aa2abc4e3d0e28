"""Neo4j Browser files generated from schema/ and cypher/: a guide and a GraSS style sheet.

The guide (``cypher/browser_guide.html``) is an HTML Browser guide, played with
``:play <url>`` (or ``:guide <url>`` in the guide drawer) from any host Browser may fetch from
(``browser.remote_content_hostname_whitelist``). Its first slide is the schema (labels with
their Biolink class and colour, relationship types with their predicates); each further slide
is one example query from ``cypher/guide_*.cypher``: a ``:params`` block to run first, then the
query. Index names are the Neo4j dialect's, passed as ``$index`` so that the same query runs on
the embedded engine with its own names (the test suite runs every example there).

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
from biokg.errors import SchemaError
from biokg.schema import GraphSchema
from biokg.store.dialect import NEO4J, Dialect

GUIDE_PREFIX = "guide_"
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
    index: tuple[str, str] | None  # (fulltext | vector, label): filled in as $index
    query: str

    def param_sets(self, dialect: Dialect, schema: GraphSchema) -> list[dict[str, Any]]:
        """The parameters, once per index ``dialect`` has for the example's ``$index`` (one on
        Neo4j; the embedded engine has a full-text index per property, e.g. name and synonyms,
        whose rows together are the Neo4j index's)."""
        if self.index is None:
            return [dict(self.params)]
        kind, label = self.index
        if kind == "vector":
            names = [dialect.vector_index_name(label)]
        else:
            names = dialect.fulltext_index_names(schema, label)
        return [{**self.params, "index": name} for name in names]


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
        [params] = example.param_sets(NEO4J, schema)
        param_text = ":params " + json.dumps(params, indent=2)
        slides.append(
            _slide(
                example.title,
                example.description,
                _runnable(param_text) + _runnable(example.query),
            )
        )
    body = "\n".join(slides)
    return (
        f"<!-- {_GENERATED} Play with :play <url of this file>. -->\n"
        '<article class="guide">\n<carousel class="deck container-fluid">\n'
        f"{body}\n</carousel>\n</article>\n"
    )


def _schema_slide(schema: GraphSchema) -> str:
    labels = "".join(
        f'<tr><td><span style="color:{spec.display.color}">&#9679;</span> :{label}</td>'
        f"<td>{html.escape(spec.category)}</td><td>{html.escape(', '.join(spec.id_prefixes))}"
        "</td></tr>"
        for label, spec in sorted(schema.labels.items())
    )
    types = "".join(
        f"<tr><td>:{name}</td><td>{html.escape(spec.predicate)}</td>"
        f"<td>{', '.join(spec.from_labels)} &#8594; {', '.join(spec.to_labels)}</td></tr>"
        for name, spec in sorted(schema.types.items())
    )
    provenance = ", ".join(schema.provenance.required)
    content = (
        "<p>Every entity node carries <code>:Entity</code> and one label below, with a CURIE "
        f"<code>id</code>. Every edge carries its provenance: <code>{provenance}</code>, one "
        "edge per source.</p>"
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
