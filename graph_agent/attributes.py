"""Questions about a node itself: its identifiers, names, brand names, definition, sources.

"What is the ChEMBL ID of aspirin?", "What is the trade name of sildenafil?", "What is the
active ingredient of Viagra?" are answered from the node's own properties, one finding per node
with the values in its statement; the claim cites the node and the sources that loaded it. A
node without the property gives no finding, so the answer says the graph holds none.
"""

from __future__ import annotations

from biokg.graph_agent.requests import Attribute
from biokg.graph_agent.research import Finding, ResearchStep, StepResult
from biokg.graph_agent.runner import QueryRunner

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
            node = row["node"]
            spoken = _SPOKEN.get(request.property, request.property.replace("_", " "))
            findings.append(
                Finding(
                    node=node["id"],
                    seed=node["id"],
                    relation=f"attribute:{request.property}",
                    edge_ids=[],
                    statement=f"{node['name'] or node['id']} ({node['id']}): {spoken}: "
                    + "; ".join(values),
                )
            )
        note = None if findings else _missing(request)
        return StepResult(self.name, findings, note=note)


def _values(row: dict, request: Attribute) -> list[str]:
    if request.property == "xrefs":
        ids = [row["node"]["id"], *(row["xrefs"] or [])]
        wanted = set(request.prefixes)
        return [i for i in ids if not wanted or i.partition(":")[0] in wanted]
    value = row["value"]
    values = value if isinstance(value, list) else [] if value is None else [value]
    return list(dict.fromkeys(str(v) for v in values if str(v).strip()))


def _missing(request: Attribute) -> str:
    asked = " or ".join(request.prefixes) if request.prefixes else request.property
    return f"the graph holds no {asked.replace('_', ' ')} for these nodes"
