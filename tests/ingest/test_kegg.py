"""KEGG: opt-in, throttled, resumable REST fetches; real formats; KGML topology; sources meet.

KEGG may not be redistributed, so the upstream is a real loopback HTTP server answering like
rest.kegg.jp from ``data/kegg``: a snapshot written by hand in KEGG's exact formats (real ids,
invented names and text), laid out by REST request path (``get/dr:D09996``,
``get/hsa04010/kgml``). ``get`` of several entries joined by ``+`` answers their records one
after the other, as KEGG does; an entry the folder lacks is left out, a ``get`` of none is 404.
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl
import pytest
from graph_state import snapshot
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.errors import BlockedError, ConfigError, FetchError, SourceFormatError
from biokg.graph_agent.agent import GraphAgent
from biokg.ingest.build import build
from biokg.ingest.formats import kegg as fmt
from biokg.ingest.formats.kegg_tables import MANIFEST
from biokg.ingest.online.kegg import BATCH, KeggClient, TokenBucket, fetch_snapshot
from biokg.ingest.records import Release, validate
from biokg.ingest.sources import DEFAULT_SOURCES, kegg
from biokg.schema import load_schema

FIXTURE = Path(__file__).parent / "data" / "kegg"
GAP = 1 / 3  # KEGG: at most 3 requests a second


# -- a loopback rest.kegg.jp -------------------------------------------------------------------
class FakeKegg(BaseHTTPRequestHandler):
    """Answers GET /<path> from the fixture folder, logging each arrival (monotonic time)."""

    server: KeggServer

    def do_GET(self) -> None:
        path = self.path.lstrip("/")
        self.server.arrivals.append((time.monotonic(), path))
        if self.server.blocked:
            return self._send(403, b"Forbidden\n")
        if (
            self.server.drop_after is not None
            and len(self.server.arrivals) > self.server.drop_after
        ):
            self.close_connection = True  # hang up without an answer
            return
        if self.server.unavailable.pop(path, False):
            return self._send(503, b"Service Unavailable\n")
        body = self.server.answer(path)
        if body is None:
            return self._send(404, b"")
        self._send(200, body)

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet: tests read ``server.arrivals``."""


class KeggServer(ThreadingHTTPServer):
    def __init__(self, folder: Path) -> None:
        super().__init__(("127.0.0.1", 0), FakeKegg)
        self.folder = folder
        self.arrivals: list[tuple[float, str]] = []
        self.blocked = False
        self.drop_after: int | None = None
        self.unavailable: dict[str, bool] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def paths(self) -> list[str]:
        return [path for _, path in self.arrivals]

    def answer(self, path: str) -> bytes | None:
        if path.startswith("get/") and not path.endswith("/kgml"):
            found = [self.folder / "get" / key for key in path[4:].split("+")]
            records = [p.read_bytes() for p in found if p.is_file()]
            return b"".join(records) if records else None
        file = self.folder / path
        return file.read_bytes() if file.is_file() else None


@pytest.fixture
def server() -> Iterator[KeggServer]:
    httpd = KeggServer(FIXTURE)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _fetch(server: KeggServer, cache: Path, **options: object) -> Path:
    return fetch_snapshot(cache, base_url=server.url, bucket=TokenBucket(), **options)


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.name != MANIFEST
    }


# -- the client ----------------------------------------------------------------------------------
def test_fetch_is_throttled_batched_and_reproduces_the_upstream(
    server: KeggServer, tmp_path: Path
) -> None:
    folder = _fetch(server, tmp_path)
    assert _tree(folder) == _tree(FIXTURE)  # every answer kept, byte for byte, by its URL path
    paths = server.paths
    # info, six list/link/conv answers, one get per kind (<= 10 entries), one KGML per pathway
    assert paths[:7] == ["info/kegg", *kegg.LISTS.values()]
    assert paths[7:10] == [
        "get/path:hsa00010+path:hsa04010+path:hsa05218",
        "get/ds:H00038+ds:H02222",
        "get/dr:D09996+dr:D10175+dr:D99901",
    ]
    assert paths[10:] == [f"get/{p}/kgml" for p in ("hsa00010", "hsa04010", "hsa05218")]
    # measured where KEGG measures it: no two arrivals closer than 1/3 s (the bucket counts
    # from the end of the previous answer, so scheduling jitter can only widen the gaps)
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(server.arrivals)]
    assert min(gaps) >= GAP, gaps
    # a complete cached snapshot: a second fetch asks only for the release
    before = len(server.arrivals)
    assert _fetch(server, tmp_path) == folder
    assert server.paths[before:] == ["info/kegg"]


def test_token_bucket_spaces_requests_from_the_end_of_the_previous_one() -> None:
    now = [100.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    bucket = TokenBucket(rate=3.0, clock=lambda: now[0], sleep=sleep)
    starts = []
    for work in (0.0, 0.1, 0.5, 0.0):  # seconds each request itself takes
        with bucket:
            starts.append(now[0])
            now[0] += work
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(starts)]
    # 1/3 s after the previous request ended: a slow answer delays the next one no further
    assert gaps == [round(GAP, 6), round(0.1 + GAP, 6), round(0.5 + GAP, 6)]


def test_get_batches_at_most_ten_and_caches_missing_entries(
    server: KeggServer, tmp_path: Path
) -> None:
    client = KeggClient(tmp_path, server.url, TokenBucket())
    ids = ["D09996", "D10175", *(f"D0{n:04d}" for n in range(1, 22))]  # 23 ids, 21 unknown
    paths = client.entries(ids, database="dr")
    sizes = [len(p[4:].split("+")) for p in server.paths]
    assert sizes == [BATCH, BATCH, 3]
    assert fmt.read_flat(paths["dr:D09996"].read_text(), "x")[0].id == "D09996"
    assert paths["dr:D00001"].read_text() == ""  # KEGG has none: kept empty, asked once
    client.entries(ids, database="dr")
    assert len(server.paths) == 3


def test_interrupted_fetch_resumes_without_asking_again(server: KeggServer, tmp_path: Path) -> None:
    server.drop_after = 9  # the server hangs up on every request after the ninth
    with pytest.raises(FetchError, match="failed after 2 attempts"):
        _fetch(server, tmp_path, retries=2, backoff_s=0.01)
    answered = server.paths[:9]
    assert not list((tmp_path / "kegg").glob(f"*/{MANIFEST}"))  # not marked complete
    server.drop_after, first = None, len(server.arrivals)
    folder = _fetch(server, tmp_path)
    again = server.paths[first:]
    # only the release is asked again: nothing answered before is requested twice
    assert set(again) & set(answered) == {"info/kegg"}
    assert sorted(set(answered) | set(again)) == sorted(set(server.paths))
    assert len(again) < len(server.paths[:first])
    assert _tree(folder) == _tree(FIXTURE)


def test_5xx_is_retried_and_403_stops_at_once(server: KeggServer, tmp_path: Path) -> None:
    server.unavailable["list/pathway/hsa"] = True
    _fetch(server, tmp_path / "a", backoff_s=0.01)
    assert server.paths.count("list/pathway/hsa") == 2
    server.blocked, before = True, len(server.arrivals)
    with pytest.raises(BlockedError, match="blocked: slow down") as info:
        _fetch(server, tmp_path / "b", backoff_s=0.01)
    assert len(server.arrivals) == before + 1  # not retried
    assert f"{server.url}/info/kegg" in str(info.value)


# -- formats ---------------------------------------------------------------------------------
@pytest.mark.parametrize("prefix", ["", "path:"], ids=["current", "older-with-path-prefix"])
def test_pathway_list_with_or_without_prefix(prefix: str, tmp_path: Path) -> None:
    folder = _copy_fixture(tmp_path)
    answer = folder / "list" / "pathway" / "hsa"
    answer.write_text("".join(f"{prefix}{line}\n" for line in answer.read_text().splitlines()))
    pathways = _normalize(folder).nodes["Pathway"]
    # ids without "path:", names without KEGG's " - Homo sapiens (human)"
    assert pathways["id"].to_list() == [
        "KEGG.PATHWAY:hsa00010",
        "KEGG.PATHWAY:hsa04010",
        "KEGG.PATHWAY:hsa05218",
    ]
    assert pathways["name"].to_list() == [
        "Glycolysis / Gluconeogenesis",
        "MAPK signaling pathway",
        "Melanoma",
    ]


def test_a_drug_entry_in_every_field() -> None:
    records = _normalize(FIXTURE)
    drug = records.nodes["Drug"].filter(pl.col("id") == "KEGG.DRUG:D09996").row(0, named=True)
    assert drug["name"] == "Vemurafenib"  # first NAME, "(JAN/USAN/INN)" dropped
    assert drug["brand_names"] == ["Zelboraf"]  # the "(TN)" name
    assert drug["synonyms"] == []
    assert drug["description"] == "Antineoplastic, fixture kinase inhibitor"  # EFFICACY
    # DBLINKS ChEMBL and DrugBank as CURIEs; PubChem SIDs and CAS numbers have no prefix here
    assert drug["xrefs"] == ["CHEMBL.COMPOUND:CHEMBL1229517", "DRUGBANK:DB08881"]
    targets = records.edges["TARGETS"].filter(pl.col("subject") == "KEGG.DRUG:D09996")
    assert targets.select("object", "mechanism", "source_record").rows() == [
        (
            "NCBIGene:673",  # TARGET "BRAF (V600E) [HSA:673]": hsa ids are NCBI Gene ids
            "BRAF (V600E)",
            "https://rest.kegg.jp/get/dr:D09996#line=6,https://rest.kegg.jp/link/hsa/drug#line=1",
        )
    ]


def test_a_disease_entry_bridges_through_its_dblinks() -> None:
    records = _normalize(FIXTURE)
    disease = records.nodes["Disease"].filter(pl.col("id") == "KEGG.DISEASE:H00038")
    assert disease.select("name", "synonyms", "xrefs").row(0) == (
        "Malignant melanoma",
        ["Cutaneous melanoma"],
        ["MESH:D008545", "OMIM:155600", "OMIM:608035"],  # ICD-10 has no prefix here
    )
    same_as = records.edges["SAME_AS"].filter(pl.col("subject") == "KEGG.DISEASE:H00038")
    # one MeSH heading: the same disease; two OMIM entries: the KEGG disease is broader than
    # either, so those edges are grouped (reached, never crossed from one entry to the other)
    assert same_as.select("object", "grouped", "source_record").rows() == [
        ("MESH:D008545", False, "https://rest.kegg.jp/get/ds:H00038#line=12"),
        ("OMIM:155600", True, "https://rest.kegg.jp/get/ds:H00038#line=13"),
        ("OMIM:608035", True, "https://rest.kegg.jp/get/ds:H00038#line=13"),
    ]
    indicated = records.edges["INDICATED_FOR"].filter(pl.col("object") == "KEGG.DISEASE:H00038")
    assert indicated["subject"].to_list() == ["KEGG.DRUG:D09996", "KEGG.DRUG:D10175"]


def test_kgml_relations_become_signed_gene_edges_per_pathway() -> None:
    edges = _normalize(FIXTURE).edges

    def pairs(rel_type: str, pathway: str = "hsa04010") -> set[tuple[str, str]]:
        frame = edges[rel_type].filter(pl.col("pathway") == f"KEGG.PATHWAY:{pathway}")
        return {
            (s.split(":")[1], o.split(":")[1]) for s, o in frame.select("subject", "object").rows()
        }

    # MEK (MAP2K1/2, 5604/5605) --> ERK (MAPK1/3, 5594/5595): each gene of one entry to each of
    # the other; KRAS (3845) --> RAF1/BRAF (5894/673); ERK --> ELK1 (2002); ELK1 -e-> FOS (2353)
    assert pairs("ACTIVATES") == {
        ("3845", "5894"), ("3845", "673"),
        *itertools.product(("5894", "673"), ("5604", "5605")),
        *itertools.product(("5604", "5605"), ("5594", "5595")),
        ("5594", "2002"), ("5595", "2002"), ("2002", "2353"),
    }  # fmt: skip
    # DUSP6 (1848) --| ERK; the group {DUSP6, FOS} --| ELK1 gives each member's edge
    assert pairs("INHIBITS") == {
        ("1848", "5594"),
        ("1848", "5595"),
        ("1848", "2002"),
        ("2353", "2002"),
    }
    assert pairs("SIGNALS_TO") == {("5594", "1848"), ("5595", "1848")}  # binding, no sign
    # the same MEK --> ERK drawn in the melanoma map is a second edge, citing that map
    assert pairs("ACTIVATES", "hsa05218") >= {("5604", "5594")}
    mek_erk = edges["ACTIVATES"].filter(
        (pl.col("subject") == "NCBIGene:5604") & (pl.col("object") == "NCBIGene:5594")
    )
    assert mek_erk.sort("pathway").select(
        "pathway", "relation", "subtypes", "sign", "source_record"
    ).rows() == [
        ("KEGG.PATHWAY:hsa04010", "PPrel", ["activation", "phosphorylation"], 1,
         "https://rest.kegg.jp/get/hsa04010/kgml#line=67"),
        ("KEGG.PATHWAY:hsa05218", "PPrel", ["activation", "phosphorylation"], 1,
         "https://rest.kegg.jp/get/hsa05218/kgml#line=27"),
    ]  # fmt: skip
    assert edges["INHIBITS"]["sign"].unique().to_list() == [-1]
    # compound (PCrel), map and enzyme-enzyme (ECrel, glycolysis) relations carry no gene edge
    assert not pairs("ACTIVATES", "hsa00010") and ("5594", "hsa04020") not in pairs("ACTIVATES")


# -- bad input ---------------------------------------------------------------------------------
def _cut_entry(folder: Path) -> tuple[Path, str]:
    path = folder / "get" / "dr:D09996"
    path.write_text(path.read_text().replace("///\n", ""))
    return path, r"get/dr:D09996\):1: record D09996 has no closing '///'"


def _not_xml(folder: Path) -> tuple[Path, str]:
    path = folder / "get" / "hsa04010" / "kgml"
    path.write_text("KEGG is under maintenance; try again later.\n")  # text, not XML
    return path, r"get/hsa04010/kgml\):1: not a KGML document \(syntax error\)"


def _one_column(folder: Path) -> tuple[Path, str]:
    path = folder / "link" / "pathway" / "hsa"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines[:4], "hsa:5594", *lines[4:]]) + "\n")
    return path, r"link/pathway/hsa\):5: expected two tab-separated columns"


@pytest.mark.parametrize(
    "spoil",
    [_cut_entry, _not_xml, _one_column],
    ids=["cut-flat-entry", "kgml-not-xml", "one-column-link"],
)
def test_bad_input_names_file_url_and_line_and_changes_nothing(
    store: GraphStore, settings: Settings, tmp_path: Path, spoil
) -> None:
    folder = _copy_fixture(tmp_path)
    path, message = spoil(folder)
    accepted = dataclasses.replace(
        settings, accepted_licenses=("kegg",), source_dirs=(("kegg", folder),)
    )
    before = snapshot(store)
    with pytest.raises(SourceFormatError, match=message) as info:
        build(store, accepted, ("kegg",), sample=True)
    assert str(path) in str(info.value) and "https://rest.kegg.jp/" in str(info.value)
    assert snapshot(store) == before


def test_a_cut_get_answer_is_an_error_naming_the_url(server: KeggServer, tmp_path: Path) -> None:
    folder = _copy_fixture(tmp_path / "upstream")
    _cut_entry(folder)
    server.folder = folder
    client = KeggClient(tmp_path / "cache", server.url, TokenBucket())
    with pytest.raises(SourceFormatError, match=r"get/dr:D09996\+dr:D10175:1: record D09996"):
        client.entries(["D09996", "D10175"], database="dr")
    assert not (tmp_path / "cache" / "get" / "dr:D10175").exists()  # nothing kept of it


# -- opt-in ---------------------------------------------------------------------------------
def test_kegg_is_opt_in(server: KeggServer, store: GraphStore, settings: Settings) -> None:
    assert "kegg" not in DEFAULT_SOURCES
    before = snapshot(store)
    refusing = dataclasses.replace(settings, source_urls=(("kegg", server.url),))
    with pytest.raises(ConfigError, match="academic use only") as info:
        build(store, refusing, ("kegg",))
    assert "--accept-kegg-license" in str(info.value)
    assert "BIOKG_KEGG_ACCEPT_LICENSE=1" in str(info.value)
    assert server.arrivals == [] and snapshot(store) == before  # nothing fetched, nothing built
    result = CliRunner().invoke(
        app,
        ["build", "--sources", "kegg", "--no-embed"],
        env={
            **settings_env(settings),
            "BIOKG_KEGG_URL": server.url,
        },
    )
    assert result.exit_code == 1 and "KEGG is free for academic use only" in result.output
    assert server.arrivals == []


def test_accepted_build_fetches_from_the_configured_url(
    server: KeggServer, own_graph_settings: Settings
) -> None:
    env = {
        **settings_env(own_graph_settings),
        "BIOKG_KEGG_URL": server.url,
        "BIOKG_KEGG_ACCEPT_LICENSE": "1",
    }
    settings = Settings.from_env(env)
    with GraphStore.connect(settings) as store:
        # no snapshot yet: KEGG has no offline copy, so even an offline build fetches one
        [loaded, _bridge] = build(store, settings, ("kegg",), sample=True)
        assert loaded.version == "113.0+/01-12" and not loaded.skipped
        rows = store.read(
            "MATCH ()-[r:ACTIVATES]->() RETURN DISTINCT r.source AS source, "
            "r.source_version AS version, r.source_record AS record ORDER BY record LIMIT 1"
        )
        assert rows[0]["source"] == "infores:kegg" and rows[0]["version"] == "113.0+/01-12"
        assert rows[0]["record"].startswith(f"{server.url}/get/hsa04010/kgml#line=")
        asked = len(server.arrivals)
        # offline, the complete snapshot in the cache is read without a request
        [again, _] = build(store, settings, ("kegg",), sample=True)
        assert again.skipped and len(server.arrivals) == asked


# -- helpers ----------------------------------------------------------------------------------
def _copy_fixture(tmp_path: Path) -> Path:
    folder = tmp_path / "kegg"
    shutil.copytree(FIXTURE, folder)
    return folder


def _normalize(folder: Path):
    fetched = kegg.fetch(folder, data_dir=folder)
    release = Release("infores:kegg", fetched.version, kegg.SOURCE.license, fetched.checksums)
    records = kegg.normalize(kegg.parse(fetched), release=release)
    validate(records, load_schema(), source="infores:kegg")
    return records


# -- where KEGG meets the other sources, and the agent ------------------------------------------
FIVE = (
    "infores:hpo-annotations",
    "infores:go",
    "infores:chembl",
    "infores:primekg",
    "infores:kegg",
)


def test_a_gene_in_five_sources_is_one_node_with_edges_from_each(
    cross_source_graph: tuple[GraphStore, Settings],
) -> None:
    store, _ = cross_source_graph
    [braf] = store.read(
        "MATCH (g:Gene {id: 'NCBIGene:673'}) RETURN g.sources AS sources, g.name AS name"
    )
    assert set(FIVE) <= set(braf["sources"])
    assert braf["name"] == "B-Raf proto-oncogene, serine/threonine kinase"  # not renamed: a stub
    edges = store.read(
        "MATCH (g:Gene {id: 'NCBIGene:673'})-[r]-() "
        "RETURN r.source AS source, type(r) AS type, count(*) AS n"
    )
    assert {e["source"] for e in edges} >= set(FIVE)
    kegg_types = {e["type"] for e in edges if e["source"] == "infores:kegg"}
    assert kegg_types == {"PARTICIPATES_IN", "ACTIVATES", "TARGETS", "ASSOCIATED_WITH"}
    assert store.read("MATCH (g:Gene) WHERE g.id IN ['673', 'hsa:673'] RETURN g.id") == []


def test_a_kegg_drug_with_a_chembl_dblink_lands_on_the_chembl_drug(
    cross_source_graph: tuple[GraphStore, Settings],
) -> None:
    store, _ = cross_source_graph
    assert store.read("MATCH (d:Drug {id: 'KEGG.DRUG:D09996'}) RETURN d.id") == []
    [drug] = store.read(
        "MATCH (d:Drug {id: 'CHEMBL.COMPOUND:CHEMBL1229517'}) "
        "RETURN d.name AS name, d.xrefs AS xrefs, d.sources AS sources"
    )
    assert drug["name"] == "VEMURAFENIB"  # ChEMBL's node, ChEMBL's name
    assert "KEGG.DRUG:D09996" in drug["xrefs"] and "infores:kegg" in drug["sources"]
    targets = store.read(
        "MATCH (:Drug {id: 'CHEMBL.COMPOUND:CHEMBL1229517'})-[r:TARGETS]->(:Gene {id: $gene}) "
        "RETURN r.source AS source, r.source_record AS record ORDER BY source",
        {"gene": "NCBIGene:673"},
    )
    records = {t["source"]: t["record"] for t in targets}  # one edge per source
    assert {"infores:chembl", "infores:kegg"} <= set(records) and len(records) == len(targets)
    assert records["infores:kegg"].startswith("https://rest.kegg.jp/get/dr:D09996#line=6")
    # a KEGG drug no other source knows stays a KEGG node
    assert store.read("MATCH (d:Drug {id: 'KEGG.DRUG:D99901'}) RETURN d.name AS n") == [
        {"n": "Fixturonib"}
    ]


def test_kegg_diseases_meet_hpo_and_chembl_records(
    cross_source_graph: tuple[GraphStore, Settings],
) -> None:
    store, _ = cross_source_graph
    rows = store.read(
        "MATCH (k:Disease)-[r:SAME_AS {source: 'infores:kegg'}]->(d:Disease) "
        "RETURN k.id AS kegg, d.id AS other, d.name AS name, d.sources AS sources, "
        "r.grouped AS grouped ORDER BY kegg, other"
    )
    met = {(r["kegg"], r["other"]): r for r in rows}
    # HPO's OMIM record and ChEMBL's MeSH heading keep their own names
    cfc = met[("KEGG.DISEASE:H02222", "OMIM:115150")]
    assert cfc["name"].startswith("Cardiofaciocutaneous syndrome") and not cfc["grouped"]
    assert "infores:hpo-annotations" in cfc["sources"]
    melanoma = met[("KEGG.DISEASE:H00038", "MESH:D008545")]
    assert melanoma["name"] == "Melanoma" and "infores:chembl" in melanoma["sources"]
    # an OMIM entry no other source holds is created with KEGG's name
    assert met[("KEGG.DISEASE:H00038", "OMIM:608035")]["name"] == "Malignant melanoma"
    assert met[("KEGG.DISEASE:H00038", "OMIM:608035")]["grouped"]


def test_agent_answers_signed_pathway_questions_from_kgml_citing_the_pathway(
    cross_source_agent: GraphAgent,
) -> None:
    agent = cross_source_agent
    answer = agent.ask("Which genes does MAP2K1 activate in the MAPK signaling pathway?")
    # MEK activates ERK (MAPK1, MAPK3); RAF1 and BRAF activate MEK (upstream, not answers)
    assert {n.symbol for n in answer.answers} == {"MAPK1", "MAPK3"}
    cited = {s.edge_id for c in answer.claims for s in c.sources}
    edges = {e.id: e for e in answer.evidence.edges if e.id in cited}
    kgml = [e for e in edges.values() if e.type == "ACTIVATES"]
    assert {e.subject for e in kgml} == {"NCBIGene:5604"}
    # each activation cited is drawn in the MAPK map, with its KGML line
    assert {e.properties["pathway"] for e in kgml} == {"KEGG.PATHWAY:hsa04010"}
    assert all(e.source_record.startswith("https://rest.kegg.jp/get/hsa04010/kgml#") for e in kgml)
    assert all("KEGG.PATHWAY:hsa04010" in c.node_ids for c in answer.claims)
    inhibited = agent.ask("Which genes does DUSP6 inhibit in the MAPK signaling pathway?")
    assert {n.symbol for n in inhibited.answers} == {"MAPK1", "MAPK3", "ELK1"}
