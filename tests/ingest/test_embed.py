"""Node embeddings on the real embedded engine: text per label, incremental runs, k-NN search.

The session graph is shared, and by the time these run it holds the full HPO release. So the
tests own labels that no offline source loads: ``Anatomy`` (hashing embedder) and ``Exposure``
(the real model), each node created here with a test id and deleted afterwards. Embedding a
loaded label instead would send 19,000 phenotypes through the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from model2vec import StaticModel

from biokg.core.embedding.models import HashingEmbedder, SentenceTransformerEmbedder
from biokg.core.embedding.onnx import LENGTH_BATCH, OnnxEmbedder
from biokg.core.embedding.search import fulltext_search, vector_search
from biokg.core.embedding.static import StaticEmbedder, load_distilled, node_embedder
from biokg.core.embedding.texts import node_text, text_chunks
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import ConfigError, EmbeddingError, SchemaError
from biokg.ingest.embedding.cache import VectorCache, cache_key
from biokg.ingest.embedding.nodes import EmbedReport, embed_graph
from biokg.schema import load_schema

MakeNodes = Callable[[str, dict[str, str]], None]


@pytest.fixture(scope="module", autouse=True)
def schema_applied(store: GraphStore) -> None:
    store.apply_schema(load_schema())  # vector and full-text indexes exist before any search


@pytest.fixture
def make_nodes(store: GraphStore) -> Iterator[MakeNodes]:
    """Create ``{id: name}`` nodes of a label; every node made is deleted after the test."""
    made: list[str] = []

    def make(label: str, names: dict[str, str]) -> None:
        assert label in ("Anatomy", "Exposure")  # labels the tests own (see module docstring)
        rows = [{"id": node_id, "name": name} for node_id, name in names.items()]
        store.write(
            f"UNWIND $rows AS row CREATE (n:Entity:{label}) SET n = row, n.sources = ['test']",
            {"rows": rows},
        )
        made.extend(names)

    yield make
    store.write("UNWIND $ids AS id MATCH (n:Entity {id: id}) DETACH DELETE n", {"ids": made})


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[VectorCache]:
    with VectorCache(tmp_path / "embeddings.sqlite") as vectors:
        yield vectors


def _embed(store: GraphStore, cache: VectorCache, label: str = "Anatomy") -> EmbedReport:
    return embed_graph(store, HashingEmbedder(), cache=cache, labels=[label])


def _hash(store: GraphStore, node_id: str) -> str:
    rows = store.read("MATCH (n:Entity {id: $id}) RETURN n.embedding_hash AS h", {"id": node_id})
    return rows[0]["h"]


ORGANS = {
    "UBERON:9900001": "renal cortex tubule",
    "UBERON:9900002": "left cardiac ventricle wall",
    "UBERON:9900003": "optic nerve head",
    "UBERON:9900004": "small intestine villus",
}


# -- text per node ---------------------------------------------------------------------------
def test_text_follows_schema_fields_in_order_with_short_definition() -> None:
    # Phenotype embeds [name, synonyms, description]: lists joined by "; ", fields by ". ",
    # the definition cut to its first sentence, a synonym equal to the name (any case) dropped.
    text = node_text(
        "Phenotype",
        {
            "name": "Seizure",
            "synonyms": ["SEIZURE", "Epileptic seizure", "Fits"],
            "description": "An intermittent abnormality of the nervous system. Second sentence.",
            "comment": "not embedded",
        },
    )
    assert text == (
        "Seizure. Epileptic seizure; Fits. An intermittent abnormality of the nervous system."
    )


def test_gene_text_keeps_a_symbol_once_and_skips_missing_fields() -> None:
    # Gene embeds [symbol, name, synonyms, description]; HPO genes have name == symbol.
    assert node_text("Gene", {"symbol": "TP53", "name": "TP53", "synonyms": ["p53"]}) == (
        "TP53. p53"
    )


def test_long_definition_is_cut_at_a_word_within_200_characters() -> None:
    long = "word " * 100
    text = node_text("Disease", {"name": "X", "description": long})
    assert len(text) <= len("X. ") + 200 and text.endswith("word")


def test_label_section_text_is_cut_into_at_most_eight_windows() -> None:
    assert text_chunks("Indications and usage: erectile dysfunction.") == [
        "Indications and usage: erectile dysfunction."
    ]
    windows = text_chunks(" ".join(f"w{i}" for i in range(2000)))
    assert len(windows) == 8
    assert windows[1].split()[0] == "w160" and len(windows[7].split()) == 160
    assert text_chunks("   ") == []


def test_hashing_embedder_is_deterministic_and_shared_words_are_near() -> None:
    embedder = HashingEmbedder()
    a, b, c = embedder.embed(["renal cortex", "renal cortex tubule", "optic nerve"])
    assert a == HashingEmbedder().embed(["renal cortex"])[0]
    assert len(a) == 384

    def cos(x: list[float], y: list[float]) -> float:
        return sum(p * q for p, q in zip(x, y, strict=True))

    assert cos(a, b) > 0.7 > 0.3 > cos(a, c)


# -- embedding the graph ---------------------------------------------------------------------
def test_second_run_embeds_and_writes_nothing(
    store: GraphStore, make_nodes: MakeNodes, cache: VectorCache
) -> None:
    make_nodes("Anatomy", ORGANS)
    make_nodes("Anatomy", {"UBERON:9900009": ""})  # a stub without text gets no vector
    seen: list[tuple[str, int, int]] = []
    first = embed_graph(
        store,
        HashingEmbedder(),
        cache=cache,
        labels=["Anatomy"],
        progress=lambda *args: seen.append(args),
    )
    assert (first.embedded, first.cache_hits, first.no_text) == (4, 0, 1)
    assert seen[-1] == ("Anatomy embeddings", 4, 4)
    second = _embed(store, cache)
    assert (second.embedded, second.cache_hits, second.written) == (0, 0, 0)
    assert second.unchanged == second.nodes == 4
    rows = store.read(
        "MATCH (n:Anatomy) WHERE n.id IN $ids RETURN size(n.embedding) AS d",
        {"ids": list(ORGANS)},
    )
    assert [r["d"] for r in rows] == [384] * 4


def test_changed_text_re_embeds_exactly_that_node(
    store: GraphStore, make_nodes: MakeNodes, cache: VectorCache
) -> None:
    make_nodes("Anatomy", ORGANS)
    _embed(store, cache)
    before = {node_id: _hash(store, node_id) for node_id in ORGANS}
    store.write("MATCH (n:Entity {id: 'UBERON:9900003'}) SET n.name = 'optic chiasm'")
    report = _embed(store, cache)
    assert (report.embedded, report.cache_hits, report.unchanged) == (1, 0, 3)
    after = {node_id: _hash(store, node_id) for node_id in ORGANS}
    assert [n for n in ORGANS if before[n] != after[n]] == ["UBERON:9900003"]


def test_rebuilt_database_takes_every_vector_from_the_cache(
    store: GraphStore, make_nodes: MakeNodes, cache: VectorCache
) -> None:
    make_nodes("Anatomy", ORGANS)
    _embed(store, cache)
    # A fresh database with the same texts: no embedding properties, the cache file kept.
    store.write(
        "MATCH (n:Entity) WHERE n.id IN $ids REMOVE n.embedding, n.embedding_hash",
        {"ids": list(ORGANS)},
    )
    report = _embed(store, cache)
    assert (report.embedded, report.cache_hits) == (0, 4)
    key = cache_key(HashingEmbedder.model_id, "renal cortex tubule")
    assert cache.get_many([key])[key] == pytest.approx(
        HashingEmbedder().embed(["renal cortex tubule"])[0], abs=1e-6
    )


def test_long_text_vector_is_the_normalized_mean_of_its_windows(
    store: GraphStore, make_nodes: MakeNodes, cache: VectorCache
) -> None:
    long_name = " ".join(f"part{i}" for i in range(200))  # 2 windows: 160 + 40 words
    make_nodes("Anatomy", {"UBERON:9900011": long_name})
    _embed(store, cache)
    [row] = store.read("MATCH (n:Entity {id: 'UBERON:9900011'}) RETURN n.embedding AS v")
    first, second = HashingEmbedder().embed(text_chunks(long_name))
    mean = [(a + b) / 2 for a, b in zip(first, second, strict=True)]
    norm = sum(x * x for x in mean) ** 0.5
    assert row["v"] == pytest.approx([x / norm for x in mean], abs=1e-6)


def test_vector_search_returns_the_node_sharing_the_query_words(
    store: GraphStore, make_nodes: MakeNodes, cache: VectorCache
) -> None:
    make_nodes("Anatomy", ORGANS)
    _embed(store, cache)
    query = HashingEmbedder().embed(["cardiac ventricle"])[0]
    hits = vector_search(store, "Anatomy", query, k=3)
    assert hits[0][0] == "UBERON:9900002"
    assert 1.0 >= hits[0][1] > hits[1][1]  # cosine mapped to [0, 1], best first


def test_fulltext_search_takes_operators_and_specials_literally(
    store: GraphStore, make_nodes: MakeNodes
) -> None:
    make_nodes("Anatomy", {"UBERON:9900010": "Zzyzx's gland (left)"})
    # Unescaped, "AND" alone or "(left" would be a Lucene syntax error.
    assert fulltext_search(store, "Anatomy", "zzyzx's AND (left")[0][0] == "UBERON:9900010"
    assert fulltext_search(store, "Anatomy", "  ") == []


@pytest.mark.parametrize(
    ("label", "message"),
    [("Label", "embeds no text"), ("Organelle", "not declared")],
    ids=["label-without-embed-fields", "undeclared-label"],
)
def test_labels_without_embedded_text_are_schema_errors(
    store: GraphStore, cache: VectorCache, label: str, message: str
) -> None:
    with pytest.raises(SchemaError, match=message):
        _embed(store, cache, label)
    with pytest.raises(SchemaError, match=label):
        vector_search(store, label, [0.0] * 384)


def test_wrong_dimensions_are_refused_before_anything_is_written(
    store: GraphStore, cache: VectorCache
) -> None:
    class Tiny(HashingEmbedder):
        dimensions = 8

    with pytest.raises(EmbeddingError, match="8-d"):
        embed_graph(store, Tiny(), cache=cache, labels=["Anatomy"])
    with pytest.raises(EmbeddingError, match="3 dimensions"):
        vector_search(store, "Anatomy", [1.0, 0.0, 0.0])


def test_unreadable_cache_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(b"not a database" * 100)
    with VectorCache(path) as broken, pytest.raises(EmbeddingError, match=str(path)):
        broken.get_many(["x"])


# -- the real model --------------------------------------------------------------------------
def test_node_embedder_links_lay_terms_to_hpo_names(
    store: GraphStore, make_nodes: MakeNodes, cache: VectorCache, static_embedder: StaticEmbedder
) -> None:
    # Real HPO phenotype names (ids: HP:0001658, HP:0001250, HP:0000822, HP:0002099,
    # HP:0002076, HP:0001631) on test-owned Exposure nodes; the queries share no word with them.
    names = [
        "Myocardial infarction",
        "Seizure",
        "Hypertension",
        "Asthma",
        "Migraine",
        "Atrial septal defect",
    ]
    make_nodes("Exposure", {f"CHEBI:99000{i}": name for i, name in enumerate(names)})
    report = embed_graph(store, static_embedder, cache=cache, labels=["Exposure"])
    assert report.embedded == len(names)
    for query, expected in [
        ("heart attack", "Myocardial infarction"),
        ("high blood pressure", "Hypertension"),
        ("headache", "Migraine"),
    ]:
        vector = static_embedder.embed([query])[0]
        [(node_id, score), (_, runner_up), *_] = vector_search(store, "Exposure", vector, k=3)
        assert names[int(node_id.removeprefix("CHEBI:99000"))] == expected, query
        assert score > runner_up


def test_static_node_embedder_is_distilled_once_from_the_packaged_model(
    static_embedder: StaticEmbedder, test_data_cache: Path
) -> None:
    # the session's embedder distils into the test data on a machine's first run (~45 s, the
    # code path a fresh home takes) and reuses it after; a second embedder must reuse it too
    embedder = static_embedder
    assert "all-MiniLM-L6-v2" in embedder.model_id and "model2vec" in embedder.model_id
    vectors = embedder.embed(["Hypertension", "high blood pressure", "Atrial septal defect"])
    made = (embedder.path / "model.safetensors").stat().st_mtime
    assert all(abs(sum(x * x for x in v) - 1) < 1e-6 for v in vectors)  # unit length, 384-d
    assert {len(v) for v in vectors} == {384}
    related, unrelated = (
        sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:]
    )
    assert related > unrelated + 0.2
    assert StaticEmbedder(test_data_cache).embed(["Hypertension"])[0] == pytest.approx(vectors[0])
    assert (embedder.path / "model.safetensors").stat().st_mtime == made  # not distilled again
    assert embedder.knows("pressure") and not embedder.knows("zorbaxinol")
    # read without model2vec's Hub loader, the same model: the same vectors to the bit
    texts = ["Hypertension", "short fingers", "ABCA1 transporter", "zorbaxinol"]
    hub_loaded = StaticModel.from_pretrained(str(embedder.path)).encode(texts)
    assert (load_distilled(embedder.path).encode(texts) == hub_loaded).all()


def test_onnx_question_embedder_gives_the_packaged_models_vectors(tmp_path: Path) -> None:
    # more texts than one model call takes, lengths mixed: grouping them by length and padding
    # must neither change a vector nor its order
    texts = ["high blood pressure", "Hypertension", "What does Viagra target in the body?"]
    texts += [
        " ".join(["abnormal heart rhythm"] * (i % 7 + 1)) + f" {i}" for i in range(LENGTH_BATCH)
    ]
    onnx = OnnxEmbedder(tmp_path)
    reference = SentenceTransformerEmbedder().embed(texts)
    got = onnx.embed(texts)
    assert onnx.path.is_file()  # exported once into the cache folder
    for mine, theirs in zip(got, reference, strict=True):
        assert max(abs(a - b) for a, b in zip(mine, theirs, strict=True)) < 1e-5
    assert onnx.model_id == SentenceTransformerEmbedder().model_id  # one vector cache
    assert onnx.knows("pressure") and not onnx.knows("zorbaxinol")


def test_embedder_setting_chooses_the_node_model(tmp_path: Path) -> None:
    home = {"BIOKG_HOME": str(tmp_path)}
    assert isinstance(node_embedder(Settings.from_env(home)), StaticEmbedder)
    transformer = node_embedder(Settings.from_env({**home, "BIOKG_EMBEDDER": "Transformer"}))
    assert transformer.model_id == SentenceTransformerEmbedder().model_id
    with pytest.raises(ConfigError, match="BIOKG_EMBEDDER='bert': expected one of static"):
        Settings.from_env({**home, "BIOKG_EMBEDDER": "bert"})
