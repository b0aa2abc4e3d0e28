"""Delta semantics on the embedded engine: an HPO term made obsolete stays findable, and the diff
of two loads' records (pure, no engine) sees added, changed, removed and dropped properties."""

from __future__ import annotations

import polars as pl
from upstream import Upstream, hpo_release, publish

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.ingest.delta import diff
from biokg.ingest.records import Records
from biokg.ingest.refresh import refresh

RETIRED, REPLACEMENT = "HP:0001518", "HP:0001250"  # Small for gestational age → Seizure


def test_a_term_made_obsolete_keeps_its_node_flagged_with_its_replacement(
    own_graph_settings: Settings,
) -> None:
    upstream = Upstream()
    http = upstream.serve()
    settings = Settings.from_env(
        {
            **settings_env(own_graph_settings),
            "BIOKG_HPO_URL": f"{upstream.url}/hpo",
        }
    )
    try:
        with GraphStore.connect(settings) as store:
            publish(upstream, "hpo", hpo_release(), at=1.7e9)
            refresh(store, settings, ["hpo"], offline=True, sample=True, embed=False)
            publish(upstream, "hpo", hpo_release(version="2025-03-03", obsolete=True), at=1.8e9)
            [report, _bridge] = refresh(
                store, settings, ["hpo"], offline=True, sample=True, embed=False
            )
            [node] = store.read(
                "MATCH (n:Phenotype {id: $id}) RETURN n.name AS name, n.obsolete AS obsolete, "
                "n.replaced_by AS replaced_by, n.sources AS sources, COUNT { (n)--() } AS edges",
                {"id": RETIRED},
            )
    finally:
        http.shutdown()
    # the node stays findable by id and name, flagged, pointing at its replacement; HPO's
    # annotation to it (line 3 of the slice: DEE 96) is gone with the release's statement
    assert node == {
        "name": "Small for gestational age",
        "obsolete": True,
        "replaced_by": [REPLACEMENT],
        "sources": ["infores:hpo-annotations"],
        "edges": 0,
    }
    # two edges go: the annotation (DEE 96 - HP:0001518) and the term's own IS_A to its parent
    assert (report.status, report.nodes_obsoleted, report.edges_removed) == ("updated", 1, 2)


def test_diff_sees_added_changed_removed_and_dropped_properties() -> None:
    def genes(rows: list[dict]) -> Records:
        schema = {"id": pl.String, "name": pl.String, "symbol": pl.String}
        return Records(nodes={"Gene": pl.DataFrame(rows, schema=schema)})

    old = genes(
        [
            {"id": "NCBIGene:1", "name": "A1BG", "symbol": "A1BG"},
            {"id": "NCBIGene:2", "name": "A2M", "symbol": "A2M"},
            {"id": "NCBIGene:9", "name": "NAT1", "symbol": "NAT1"},
        ]
    )
    new = genes(
        [
            {"id": "NCBIGene:1", "name": "A1BG", "symbol": "A1BG"},  # same: not written
            {"id": "NCBIGene:2", "name": "alpha-2-macroglobulin", "symbol": None},  # changed
            {"id": "NCBIGene:10", "name": "NAT2", "symbol": "NAT2"},  # added
        ]
    )
    delta = diff(old, new)
    change = delta.nodes["Gene"]
    assert change.added["id"].to_list() == ["NCBIGene:10"]
    assert change.changed["id"].to_list() == ["NCBIGene:2"]
    assert delta.released == {"Gene": ["NCBIGene:9"]}  # no longer asserted by this source
    assert delta.counts()["nodes_removed"] == 1


def test_diff_sees_a_stubs_values_change() -> None:
    # the disease bridge states MONDO's names of the records it references: a new MONDO release
    # that renames a term changes the stub, and the delta writes it
    def stubs(rows: list[dict]) -> Records:
        schema = {"id": pl.String, "synonyms": pl.List(pl.String)}
        return Records(stubs={"Disease": pl.DataFrame(rows, schema=schema)})

    old = stubs(
        [
            {"id": "OMIM:309900", "synonyms": ["Hunter syndrome"]},
            {"id": "ORPHA:580", "synonyms": ["Hunter syndrome"]},
        ]
    )
    new = stubs(
        [
            {"id": "OMIM:309900", "synonyms": ["Hunter syndrome", "MPS II"]},
            {"id": "ORPHA:580", "synonyms": ["Hunter syndrome"]},
            {"id": "ORPHA:355", "synonyms": None},
        ]
    )
    delta = diff(old, new)
    assert delta.stubs["Disease"].changed["id"].to_list() == ["OMIM:309900"]
    assert delta.stubs["Disease"].added["id"].to_list() == ["ORPHA:355"]
    assert delta.counts()["nodes_changed"] == 1 and delta.counts()["nodes_added"] == 1
