"""Questions about a node itself: its identifiers, names, brand names, definition, sources.

"What is the ChEMBL ID of aspirin?", "What is the trade name of sildenafil?", "What is the
active ingredient of Viagra?" are answered from the node's own properties, one finding per node
with the values in its statement; the claim cites the node and the sources that loaded it. A
node without the property gives no finding, so the answer says the graph holds none.
"""

from __future__ import annotations

from biokg.graph_agent.answer import spoken
from biokg.graph_agent.findings import Finding, StepResult
from biokg.graph_agent.requests import Attribute
from biokg.graph_agent.research import ResearchStep
from biokg.graph_agent.runner import QueryRunner
from biokg.graph_agent.text import mention_key

#: How a property is named in an answer.
_SPOKEN = {
    "xrefs": "identifiers",
    "brand_names": "brand names",
    "generic_names": "generic names",
    "name": "active ingredient",
    "max_phase": "highest development phase",
}


class AttributeLookup(ResearchStep[Attribute]):
    """The asked property of each node (module docstring)."""

    name = "attribute"

    def search(self, runner: QueryRunner, request: Attribute) -> StepResult:
        rows = runner.template(
            "agent_node_properties",
            {"ids": list(request.nodes), "property": request.property},
            step=f"attribute:{request.property}",
        )
        findings = []
        for row in rows:
            values = _values(row, request)
            if not values:
                continue
            node = runner.evidence.nodes[row["node"]["id"]]
            findings.append(
                Finding(
                    node=node.id,
                    seed=node.id,
                    relation=spoken_property(request.property),
                    edge_ids=[],
                    statement=f"{spoken(node)}: {spoken_property(request.property)}: "
                    + "; ".join(values),
                )
            )
        names = ", ".join(spoken(runner.evidence.nodes[r["node"]["id"]]) for r in rows)
        note = None if findings else _missing(request, names or ", ".join(request.nodes))
        return StepResult(self.name, findings, note=note)


def spoken_property(name: str) -> str:
    """A property as an answer names it ("brand_names" → "brand names")."""
    return _SPOKEN.get(name, name.replace("_", " "))


def _values(row: dict, request: Attribute) -> list[str]:
    if request.property == "xrefs":
        ids = [row["node"]["id"], *(row["xrefs"] or [])]
        wanted = set(request.prefixes)
        return [i for i in ids if not wanted or i.partition(":")[0] in wanted]
    value = row["value"]
    values = value if isinstance(value, list) else [] if value is None else [value]
    # one spelling per name ("VIAGRA", "Viagra"): mixed case first, as people write it
    unique: dict[str, str] = {}
    for text in sorted((str(v) for v in values if str(v).strip()), key=lambda v: v.isupper()):
        unique.setdefault(mention_key(text) or text, text)
    return list(unique.values())


def _missing(request: Attribute, names: str) -> str:
    asked = " or ".join(request.prefixes) if request.prefixes else request.property
    return f"the graph holds no {spoken_property(asked)} for {names}"
