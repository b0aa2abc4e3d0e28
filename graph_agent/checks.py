"""Checking a claim: is a yes/no question's or a statement's relation in the graph?

"Tay-Sachs disease associates gene HEXA", "Is LMNA found in the nuclear envelope?", "X is not
an autosomal dominant disease": the subjects and objects are linked nodes; the check looks for an
edge between them, in either direction, the objects' subtypes and parts included (a claim about
"X-linked inheritance" is met by "X-linked recessive inheritance"). Paths through one node
between them are looked for when no relationship type joins the two kinds of node, and when an
edge found summarises such paths (a gene's phenotype edge lists the diseases it comes from), so
the answer can name the disease that makes "Can COL1A1 variants cause blue sclerae?" true; a
path is no evidence where a direct edge was possible and absent.

The verdict reads the claim's polarity: an edge supports "yes" for a positive claim and "no" for
a negated one; only negated edges (GO/HPO ``NOT``) reverse that. No edge and no path: no verdict,
and the answer says the graph holds nothing either way.
"""

from __future__ import annotations

from biokg.graph_agent.findings import Finding, StepResult, verdict_of
from biokg.graph_agent.requests import ClaimCheck, Neighbours
from biokg.graph_agent.research import BreadthSearch, Equivalent, ResearchStep, same_as
from biokg.graph_agent.runner import QueryRunner

#: A claim that holds is shown with the subjects' other values on its relationship when they
#: are this few (other modes of inheritance: alternatives to the claim; a gene's twenty other
#: diseases are a listing nobody asked for).
MAX_ALSO_HELD = 3
#: Subtypes taken into a claim's objects, and rows read per query.
MAX_SUBTYPES = 500
MAX_ROWS = 60


class ClaimCheckSearch(ResearchStep[ClaimCheck]):
    """Edges, then one-node paths, between a claim's subjects and objects (module docstring)."""

    name = "claim"

    def search(self, runner: QueryRunner, request: ClaimCheck) -> StepResult:
        subjects, objects = list(request.subjects), list(request.objects)
        bridged = same_as(runner, subjects)
        same_subjects = bridged.equivalents
        same_objects = same_as(runner, objects).equivalents
        asked = (*objects, *same_objects)
        objects = _with_subtypes(runner, asked)
        # a broad class ("Is X an enzyme?") has more subtypes than a list holds: read from the
        # subjects' side, up the hierarchy from what they touch
        broad = len(objects) >= MAX_SUBTYPES
        params = {
            "subjects": subjects + list(same_subjects),
            "objects": list(asked) if broad else objects,
            "types": list(request.types),
            "limit": MAX_ROWS,
        }
        template = "agent_claim_under" if broad else "agent_claim_edges"
        findings = [
            Finding(
                node=row["node"]["id"],
                seed=row["seed"]["id"],
                relation=row["edge"]["type"],
                edge_ids=[row["edge"]["id"]],
                negated=bool(row["edge"]["props"].get("negated")),
                support=2,  # a direct edge outranks any path
            )
            for row in runner.template(template, params, step="claim:edges")
        ]
        findings = [_crossed(f, same_subjects, same_objects) for f in findings]
        summarising = any(
            runner.evidence.edges[e].properties.get("diseases")
            for f in findings
            for e in f.edge_ids
        )
        unjoined = not findings and (not request.types or bool(request.through))
        if (unjoined or summarising) and runner.remaining_queries > 1:
            paths = _paths(
                runner,
                {
                    **params,
                    "types": [],
                    "through": list(request.through),
                    "values": list(request.values),
                },
                under=broad,
            )
            findings += [_crossed(f, same_subjects, same_objects) for f in paths]
        met = {f.seed for f in findings}
        others = [
            s for s in request.subjects if s not in met and not bridged.twins.get(s, set()) & met
        ]
        if findings and others and request.held and runner.remaining_queries > 1:
            # an ambiguous name ("progeria": two diseases, one recessive, one dominant): what
            # the claim does not hold for is shown too, and no verdict is given for the name
            shown = BreadthSearch().run(runner, Neighbours(tuple(others), request.held))
            held = [f for f in shown.findings if not f.negated]
            if held:
                note = (
                    f"the claim holds for {len({f.seed for f in findings})} of the "
                    f"{len(request.subjects)} nodes the name may mean; the graph holds other "
                    "values for the rest"
                )
                return StepResult(self.name, findings + held, note=note)
        verdict = verdict_of(findings, request.negated)
        also: list[Finding] = []
        if verdict and request.held and runner.remaining_queries > 1:
            also = _also_held(runner, request, findings)
        note = (
            f"the claim is met by the first {len({f.node for f in findings})} answer(s); the "
            f"other {len(also)} are further values the graph holds on the same relationship"
        )
        return StepResult(self.name, findings + also, verdict=verdict, note=note if also else None)


def _also_held(runner: QueryRunner, request: ClaimCheck, findings: list[Finding]) -> list[Finding]:
    """The other values the subjects hold on the type that met the claim: "Is progeria
    autosomal recessive?" is true, and the graph records it as autosomal dominant too; a
    reader judging the verdict needs both. Ranked after the claim's own edges; none when there
    are more than :data:`MAX_ALSO_HELD`."""
    met = {f.relation for f in findings}  # a path's "A>B" is no type: only direct edges
    relations = tuple(r for r in request.held if r.type in met)
    if not relations:
        return []
    seeds = tuple(dict.fromkeys(f.seed for f in findings))
    shown = BreadthSearch().run(runner, Neighbours(seeds, relations))
    known = {(f.seed, f.node) for f in findings}
    also = [f for f in shown.findings if not f.negated and (f.seed, f.node) not in known]
    return also if len({f.node for f in also}) <= MAX_ALSO_HELD else []


def _crossed(
    finding: Finding, subjects: dict[str, Equivalent], objects: dict[str, Equivalent]
) -> Finding:
    """A finding that started or ended at a subject's or object's equivalent under another
    source's id (SAME_AS), put back on the asked node with the bridge edges as evidence."""
    start, end = subjects.get(finding.seed), objects.get(finding.node)
    if start is not None:
        finding.via = [finding.seed, *finding.via]
        finding.edge_ids = [*start.edges, *finding.edge_ids]
        finding.seed = start.seed
    if end is not None:
        finding.via = [*finding.via, finding.node]
        finding.edge_ids = [*finding.edge_ids, *end.edges]
        finding.node = end.seed
    return finding


def _with_subtypes(runner: QueryRunner, ids: tuple[str, ...]) -> list[str]:
    rows = runner.template(
        "agent_subtypes", {"ids": list(ids), "limit": MAX_SUBTYPES}, step="claim:subtypes"
    )
    return sorted({*ids, *(r["id"] for r in rows)})


def _paths(runner: QueryRunner, params: dict, *, under: bool) -> list[Finding]:
    """Paths through one node, one finding per (subject, object, via types); ``under``: the
    objects are broad classes, met by anything beneath them."""
    merged: dict[tuple[str, str, str], Finding] = {}
    template = "agent_claim_paths_under" if under else "agent_claim_paths"
    for row in runner.template(template, params, step="claim:paths"):
        relation = f"{row['first']['type']}>{row['second']['type']}"
        key = (row["seed"]["id"], row["node"]["id"], relation)
        edges = [row["first"]["id"], row["second"]["id"]]
        if key not in merged:
            merged[key] = Finding(
                key[1], key[0], relation, edges, via=[row["via"]["id"]], support=1
            )
        elif len(merged[key].via) < 3:
            merged[key].edge_ids += edges
            merged[key].via.append(row["via"]["id"])
    return sorted(merged.values(), key=lambda f: -len(f.via))
