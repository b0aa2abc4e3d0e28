"""One graph whatever the build order (docs/decisions/0016-node-facts.md).

The default sources, on small real inputs (an HPO slice of the genes a GO slice from
org.Hs.eg.db holds, so the two sources assert the same genes; ChEMBL, PrimeKG and openFDA's
offline data), are built one at a time in registry order into one graph and in the reverse order
into another, the second with a ``kill -9`` of the CLI half-way through its first load. Every
node's and edge's properties (volatile fields excluded) must then be identical; and stay so
after ``--force`` of one source, and after a refresh of one source with a change in both.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_state import assert_same_graph, graph_dump
from hpo_slice import HPO_DATA, obo_slice
from offline_read import shared_sample
from own_graph import fresh_graph_settings, release
from test_build import go_data

from biokg.core.embedding.static import StaticEmbedder
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.graph_agent.agent import GraphAgent
from biokg.ingest.build import build
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.ingest.node_facts import FACTS
from biokg.ingest.refresh import refresh
from biokg.ingest.sources import DEFAULT_SOURCES
from biokg.ingest.sources.openfda import SAMPLE_FOLDER

GO_GENES = 300
SHARED = {"infores:go", "infores:hpo-annotations"}
#: genes_to_phenotype rows kept per gene, and phenotype.hpoa lines kept per disease
G2P_PER_GENE, HPOA_PER_DISEASE = 4, 6


def hpo_slice_for(genes: set[str], folder: Path) -> Path:
    """Real HPO release lines about ``genes`` (NCBIGene numbers): their gene-phenotype rows, the
    annotations of the diseases those rows name, and the terms they use with their ancestors."""
    folder.mkdir(parents=True, exist_ok=True)
    g2p_lines = (HPO_DATA / "genes_to_phenotype.txt").read_text(encoding="utf-8").splitlines()
    kept, per_gene = [g2p_lines[0]], {}
    for line in g2p_lines[1:]:
        gene = line.split("\t")[0]
        if gene in genes and per_gene.get(gene, 0) < G2P_PER_GENE:
            per_gene[gene] = per_gene.get(gene, 0) + 1
            kept.append(line)
    diseases = {line.split("\t")[5] for line in kept[1:]}
    hpoa_lines = (HPO_DATA / "phenotype.hpoa").read_text(encoding="utf-8").splitlines()
    hpoa, per_disease = [], {}
    for line in hpoa_lines:
        disease = line.split("\t")[0]
        if line.startswith("#") or line.startswith("database_id"):
            hpoa.append(line)
        elif disease in diseases and per_disease.get(disease, 0) < HPOA_PER_DISEASE:
            per_disease[disease] = per_disease.get(disease, 0) + 1
            hpoa.append(line)
    terms = {line.split("\t")[2] for line in kept[1:]}
    terms |= {line.split("\t")[3] for line in hpoa if line.startswith(("OMIM", "ORPHA"))}
    (folder / "hp.obo").write_text(obo_slice(terms), encoding="utf-8")
    (folder / "phenotype.hpoa").write_text("\n".join(hpoa) + "\n", encoding="utf-8")
    (folder / "genes_to_phenotype.txt").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory, test_data_cache: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("order-inputs")
    go = go_data(root / "go", test_data_cache, genes=GO_GENES)
    gaf = (go / "goa_human.gaf").read_text(encoding="utf-8").splitlines()
    genes = {ln.split("\t")[1] for ln in gaf if ln and not ln.startswith("!")}
    return {"go": go, "hpo": hpo_slice_for(genes, root / "hpo")}


def graph_settings(
    factory: pytest.TempPathFactory, inputs: dict[str, Path], *, started: bool
) -> Settings:
    """An empty graph of its own that reads HPO and GO from the small inputs."""
    own = fresh_graph_settings(factory, started=started)
    return dataclasses.replace(own, source_dirs=tuple(sorted(inputs.items())))


@pytest.fixture(scope="module")
def two_graphs(
    tmp_path_factory: pytest.TempPathFactory, inputs: dict[str, Path]
) -> Iterator[tuple[Settings, Settings]]:
    """Forward: a pooled graph, built in this process. Backward: an engine of its own, which
    the killed CLI started and owned, so it dies half-way through a write with it."""
    forward = graph_settings(tmp_path_factory, inputs, started=True)
    backward = graph_settings(tmp_path_factory, inputs, started=False)
    try:
        yield forward, backward
    finally:
        for own in (forward, backward):
            release(own)


def build_one_at_a_time(settings: Settings, names: list[str]) -> None:
    with GraphStore.connect(settings) as store:
        for name in names:
            build(store, settings, (name,), sample=True)


def kill_build_half_way(settings: Settings, name: str) -> None:
    """``biokg build --sources NAME`` in its own process, killed with SIGKILL once the first of
    its nodes are in the graph and before its load completes."""
    with GraphStore.connect(settings):  # the graph's server, shared with the child
        pass
    env = {**os.environ, **embedded.settings_env(settings), "BIOKG_BATCH_SIZE": "50"}
    child = subprocess.Popen(
        [Path(sys.executable).parent / "biokg", "build", "--sources", name, "--no-embed"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with GraphStore.connect(settings) as store:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and child.poll() is None:
            rows = store.read("MATCH (n:Label) RETURN count(n) AS n")
            if rows[0]["n"] > 0:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the build ended before it could be killed half-way"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        current = store.read(
            "MATCH (v:SourceVersion {source: $s, current: true}) RETURN count(v) AS n",
            {"s": "infores:openfda"},
        )
        assert current[0]["n"] == 0  # the killed load never became current


def dump(settings: Settings) -> dict:
    with GraphStore.connect(settings) as store:
        return graph_dump(store)


@pytest.mark.slow
def test_build_order_kill_force_and_refresh_give_one_graph(
    two_graphs: tuple[Settings, Settings], inputs: dict[str, Path]
) -> None:
    forward, backward = two_graphs
    order = list(DEFAULT_SOURCES)
    assert order == ["hpo", "go", "chembl", "primekg", "openfda"]
    build_one_at_a_time(forward, order)
    kill_build_half_way(backward, "openfda")
    build_one_at_a_time(backward, order[::-1])  # openfda first: re-run after the kill
    built = dump(forward)
    assert_same_graph(built, dump(backward))

    # the sources meet: genes both HPO and GO assert show GO's gene authority's full name
    genes = {k: v for k, v in built["nodes"].items() if k.startswith("NCBIGene:")}
    shared = [
        v for v in genes.values() if {"infores:go", "infores:hpo-annotations"} <= set(v["sources"])
    ]
    assert len(shared) > 50
    assert all(v["name"] != v["symbol"] for v in shared)
    drugs = [v for k, v in built["nodes"].items() if k.startswith("CHEMBL.COMPOUND:")]
    assert any("infores:openfda" in v["sources"] for v in drugs)  # openFDA merged onto ChEMBL's
    # the bridge's MONDO names are part of what is compared: diseases show them as synonyms
    named = [
        v for v in built["nodes"].values() if "infores:mondo" in v["sources"] and v.get("synonyms")
    ]
    assert len(named) > 10

    with GraphStore.connect(backward) as store:
        build(store, backward, ("hpo",), sample=True, force=True)
    assert_same_graph(built, dump(backward))

    changed = inputs["hpo"].parent / "hpo-changed"
    changed.mkdir()
    for name in ("hp.obo", "phenotype.hpoa"):
        (changed / name).write_bytes((inputs["hpo"] / name).read_bytes())
    g2p = (inputs["hpo"] / "genes_to_phenotype.txt").read_text().splitlines()
    (changed / "genes_to_phenotype.txt").write_text("\n".join(g2p[: len(g2p) // 2]) + "\n")
    for own in two_graphs:
        moved = dataclasses.replace(
            own, source_dirs=tuple(sorted({**inputs, "hpo": changed}.items()))
        )
        with GraphStore.connect(moved) as store:
            [report, *_] = refresh(store, moved, ["hpo"], offline=True, sample=True, embed=False)
            assert report.status in ("updated", "reloaded"), report
    refreshed = dump(forward)
    assert refreshed != built
    assert_same_graph(refreshed, dump(backward))


def test_a_source_that_stops_asserting_a_gene_takes_only_its_facts(
    two_graphs: tuple[Settings, Settings],
) -> None:
    """After the refresh above (run first: same module), genes HPO no longer names keep GO's
    facts alone; none keeps HPO's."""
    forward, _ = two_graphs
    nodes = dump(forward)["nodes"]
    go_only = [
        v for k, v in nodes.items() if k.startswith("NCBIGene:") and v["sources"] == ["infores:go"]
    ]
    assert go_only
    assert all("infores:hpo-annotations" not in v.get(FACTS, "") for v in go_only)


def test_rebuilding_hpo_keeps_gene_names_vectors_and_search(
    two_graphs: tuple[Settings, Settings],
    inputs: dict[str, Path],
    static_embedder: StaticEmbedder,
    tmp_path: Path,
) -> None:
    """The issue's case: ``biokg build --force --sources hpo`` on a graph where GO names the
    genes had replaced their names by HPO's symbols and re-embedded them."""
    forward, _ = two_graphs
    now = dataclasses.replace(  # HPO as the refresh above left it
        forward,
        source_dirs=tuple(sorted({**inputs, "hpo": inputs["hpo"].parent / "hpo-changed"}.items())),
    )
    with GraphStore.connect(now) as store, VectorCache(tmp_path / "vectors.sqlite") as cache:
        first = embed_graph(store, static_embedder, cache=cache, labels=["Gene"])
        assert first.embedded > 0
        before = dump(now)["nodes"]
        shared = sorted(v["name"] for v in before.values() if SHARED <= set(v.get("sources", [])))
        searched = shared[:: max(1, len(shared) // 5)]  # gene names both sources assert
        found = {n: GraphAgent.connect(store, now).linker.link(n)[0].id for n in searched}
        build(store, now, ("hpo",), sample=True, force=True)
        again = embed_graph(store, static_embedder, cache=cache, labels=["Gene"])
        assert (again.embedded, again.cache_hits, again.unchanged) == (0, 0, first.nodes)
        assert dump(now)["nodes"] == before
        assert {n: GraphAgent.connect(store, now).linker.link(n)[0].id for n in searched} == found


def test_a_dependent_built_from_other_files_is_not_reloaded_from_the_default_ones(
    own_graph_settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """openFDA built from a folder of its own, then ChEMBL: openFDA's drugs would merge onto
    ChEMBL's, but reloading it from the default files would replace the user's data; it stays,
    and the build says how to reload it."""
    own = tmp_path / "openfda"
    own.mkdir()
    for path in shared_sample("openfda")[SAMPLE_FOLDER].iterdir():
        if path.name != "spl_cough.xml":  # a folder of the user's: one label fewer
            (own / path.name).write_bytes(path.read_bytes())
    current = "MATCH (v:SourceVersion {source: $s, current: true}) RETURN v.load_id AS id"
    with GraphStore.connect(own_graph_settings) as store:
        build(store, own_graph_settings, ("openfda",), data_dir=own, sample=True)
        before = store.read(current, {"s": "infores:openfda"})
        with caplog.at_level("WARNING", logger="biokg.ingest.build"):
            results = build(store, own_graph_settings, ("chembl",), sample=True)
        assert [r.source for r in results] == ["infores:chembl", "infores:mondo"]
        assert store.read(current, {"s": "infores:openfda"}) == before
    assert "rebuild it from its own files" in caplog.text
