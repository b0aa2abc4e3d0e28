"""Session fixtures shared by every test folder: settings and the one embedded graph store.

The embedded engine runs in a JVM that cannot restart inside a process, so one server serves the
whole session, on free loopback ports, with its data in a session temp folder. Tests that count
use deltas or per-source filters, never assume an empty graph unless they created it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import session_graph
import worker_groups
from hpo_slice import slice_obo
from own_graph import TEST_DATA, fresh_graph_settings, release, share_test_data
from xdist.remote import Producer
from xdist.workermanage import WorkerController

from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.embedding.static import StaticEmbedder
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.core.store.embedded import free_port
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.diagnosis.load import phenotype_index
from biokg.graph_agent.lexicon import Lexicon
from biokg.ingest.build import build
from biokg.ingest.offline.go_corpus import build_offline_corpus


@pytest.fixture(scope="session")
def session_home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings of the session graph's home, before its engine starts."""
    home = tmp_path_factory.mktemp("biokg-home")
    return share_test_data(
        Settings.from_env(
            {
                "BIOKG_HOME": str(home),
                "BIOKG_BOLT_PORT": str(free_port()),
                "BIOKG_HTTP_PORT": str(free_port()),
                "BIOKG_BATCH_SIZE": "5000",
            }
        )
    )


#: Where arcadedb-embedded reads the options of the JVM an engine starts with.
JVM_ARGS = "ARCADEDB_JVM_ARGS"
#: The JVM options of every engine a test run starts but the session graph's: the pool's
#: (own_graph.POOL), the engines of a graph of its own, and those a CLI, Prefect or server
#: process of a test starts. They live for a few builds and reads each, so C1's quickly made code
#: serves them better than C2's, whose compiling costs more CPU than it gains back in so short a
#: life (tests/ingest/test_build_order.py alone: 121 s of CPU with C2, 72 s with C1 only,
#: 2026-12-07). The session graph's engine keeps the JVM's defaults: the long reads of the
#: session and cross-source graphs' tests took twice the CPU or more with C1's code (decision
#: 0031, "The engines' JVM tuned for short lives"; decision 0028).
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1"


def pytest_configure(config: pytest.Config) -> None:
    """The test run's engines start with :data:`SHORT_LIVED_JVM`, unless the environment sets
    the JVM's options itself."""
    os.environ.setdefault(JVM_ARGS, SHORT_LIVED_JVM)


@contextmanager
def _long_lived_jvm() -> Iterator[None]:
    """An engine started in this block gets the JVM's defaults, not :data:`SHORT_LIVED_JVM`
    (an environment's own options are kept)."""
    ours = os.environ.get(JVM_ARGS) == SHORT_LIVED_JVM
    if ours:
        del os.environ[JVM_ARGS]
    try:
        yield
    finally:
        if ours:
            os.environ[JVM_ARGS] = SHORT_LIVED_JVM


@pytest.fixture(scope="session")
def store(session_home: Settings, request: pytest.FixtureRequest) -> Iterator[GraphStore]:
    """The session graph's store, its engine with the JVM's defaults (:data:`SHORT_LIVED_JVM`).
    On a pytest-xdist worker its graph comes with AGENT_SOURCES built: by the first worker to
    get here, copied by the others (tests/session_graph.py)."""
    with _long_lived_jvm():
        if hasattr(request.config, "workerinput"):
            graph = session_graph.connect_built(
                session_home,
                Path(request.config.workerinput[SNAPSHOT]),
                lambda built: _build_shared_graph(built, session_home),
            )
        else:
            graph = GraphStore.connect(session_home)
    with graph:
        yield graph


@pytest.fixture(scope="session")
def settings(session_home: Settings, store: GraphStore) -> Settings:
    """The session graph's settings, its engine started (and, on a pytest-xdist worker, its
    graph built), so that a CLI test's first command finds the session engine running."""
    return session_home


@pytest.fixture
def own_graph_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings of an empty graph of its own, for a test that must know everything in the
    graph, e.g. what a build embeds: a database of its own in an engine already listening
    (own_graph.POOL), schema/'s constraints and indexes applied, dropped afterwards."""
    own = fresh_graph_settings(tmp_path_factory, started=True)
    yield own
    release(own)


@pytest.fixture
def own_unstarted_graph_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Like ``own_graph_settings``, but no engine runs yet: for a test that sets the engine's
    own limits (they are read when it starts). Its first connect starts it."""
    own = fresh_graph_settings(tmp_path_factory)
    yield own
    embedded.stop_background(own)


@pytest.fixture(scope="session")
def test_data_cache() -> Path:
    """Real packaged data (Debian .debs) and the models made from it, fetched or made once per
    machine and reused between runs (every graph home links to them: own_graph.SHARED_CACHE)."""
    TEST_DATA.mkdir(parents=True, exist_ok=True)
    return TEST_DATA


@pytest.fixture(scope="session")
def static_embedder(test_data_cache: Path) -> StaticEmbedder:
    """The build's node embedder, its distilled model kept with the test data (made once)."""
    return StaticEmbedder(test_data_cache)


@pytest.fixture(scope="session")
def sentence_embedder(test_data_cache: Path) -> OnnxEmbedder:
    """The transformer questions are read with (ONNX export kept with the test data)."""
    return OnnxEmbedder(test_data_cache)


#: What the agent, CLI and API tests ask: the full offline HPO release plus ChEMBL and openFDA.
AGENT_SOURCES = ("hpo", "chembl", "openfda")


@pytest.fixture(scope="session")
def agent_graph(store: GraphStore, settings: Settings) -> GraphStore:
    """The session graph with AGENT_SOURCES loaded through the real build (unchanged: skipped)."""
    _build_agent_graph(store, settings)
    return store


def _build_agent_graph(store: GraphStore, settings: Settings) -> None:
    """AGENT_SOURCES through the real build, and the agent's lexicon of the graph they make."""
    build(store, settings, AGENT_SOURCES, sample=True)
    Lexicon.load(store, settings.cache_dir)


def _build_shared_graph(store: GraphStore, settings: Settings) -> None:
    """The session graph as every worker's tests use it, made once for the snapshot: the agent
    graph, and the diagnosis index cached in its home (~30 s of CPU where a worker reads it
    from the graph)."""
    _build_agent_graph(store, settings)
    phenotype_index(store, settings.cache_dir)


@pytest.fixture(scope="session")
def agent(agent_graph: GraphStore, settings: Settings) -> GraphAgent:
    """The agent built the way the CLI and the API build theirs."""
    return GraphAgent.connect(agent_graph, settings)


#: Every source on its offline data (the full HPO release, ChEMBL's, openFDA's and PrimeKG's
#: samples, GO's full ontology with the annotations of a gene slice) and KEGG on its fixture.
CROSS_SOURCES = ("hpo", "go", "chembl", "openfda", "primekg", "kegg")
KEGG_FIXTURE = Path(__file__).parent / "ingest" / "data" / "kegg"
#: org.Hs.eg.db's first genes by number (up to NCBIGene:1360 or so: ABCA1, ABL1, BRAF among
#: them): 28k of the corpus's 348k annotation lines. The full corpus is read by tests/ingest.
GO_GENE_SLICE = 1000


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests on the cross-source graph run last, in their order: that graph is the session
    graph with the other sources added, so the session graph's tests see it as they expect.
    On a pytest-xdist worker, the units of tests/worker_groups.py keep that order."""
    if hasattr(config, "workerinput"):
        worker_groups.group_and_order(items)
    else:
        items.sort(key=lambda item: "cross_source_graph" in item.fixturenames)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (scripts/test.sh): the whole suite on two workers on a machine of two cores
    or more (each worker builds a session graph of its own, so more workers than cores only add
    work); a selection (``-m``, ``-k``, test paths) in this process, since each worker would
    collect the whole suite and start its own engines first (``-m unit``: 24 s in one process,
    2026-12-07). ``-n 2`` asks for workers whatever is selected, ``-n 0`` for none."""
    selected = config.option.markexpr or config.option.keyword
    if selected or config.args_source == pytest.Config.ArgsSource.ARGS:
        return 0
    return 2 if len(os.sched_getaffinity(0)) >= 2 else 0


#: Where a worker finds the folder of the session graph's snapshot (its ``workerinput``).
SNAPSHOT = "biokg_session_graph"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: WorkerController) -> None:
    """Each worker of a distributed run is told the folder they share the session graph in."""
    node.workerinput[SNAPSHOT] = str(worker_groups.snapshot_folder(node.config))


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # before pytest-xdist's own
def pytest_xdist_make_scheduler(
    config: pytest.Config, log: Producer
) -> worker_groups.UnitScheduling:
    """Any distributed run (``-n``, whatever ``--dist`` says) shares the suite out by the units
    of tests/worker_groups.py: another way can run a test of the session graph after the
    cross-source graph on a worker."""
    return worker_groups.UnitScheduling(config, log)


@pytest.fixture(scope="session")
def cross_source_graph(
    agent_graph: GraphStore, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> tuple[GraphStore, Settings]:
    """The session graph with CROSS_SOURCES loaded through the real build (KEGG's licence
    accepted; what is there already and unchanged is skipped, as any build skips it), for the
    tests of sources meeting (bridge, KEGG) and of questions about GO. It runs after every
    other test (:func:`pytest_collection_modifyitems`): they count drugs without PrimeKG's and
    KEGG's. Adding to the session graph, not building a graph of its own, saves loading HPO,
    ChEMBL and openFDA twice (~60 s); GO's gene slice saves loading 320k annotations (~30 s),
    and the ontology cut to the terms they use saves 37k of its 47k terms."""
    go = build_offline_corpus(
        TEST_DATA, TEST_DATA / f"go-corpus-{GO_GENE_SLICE}-genes", slice_genes=GO_GENE_SLICE
    )
    own = dataclasses.replace(
        settings,
        accepted_licenses=("kegg",),
        source_dirs=(("go", go_slice(go, tmp_path_factory.mktemp("go"))), ("kegg", KEGG_FIXTURE)),
    )
    build(agent_graph, own, CROSS_SOURCES, sample=True)
    return agent_graph, own


def go_slice(corpus: dict[str, Path], folder: Path) -> Path:
    """A GO data dir: the corpus's annotations, and its ontology cut to the terms they use with
    every term those reach (is_a and relationship lines: each edge keeps both ends)."""
    gaf = corpus["goa_human_gaf"]
    used = {
        line.split("\t")[4]
        for line in gaf.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("!")
    }
    obo = corpus["go_basic_obo"].read_text(encoding="utf-8")
    (folder / "go-basic.obo").write_text(slice_obo(obo, used, relationships=True), "utf-8")
    shutil.copy(gaf, folder / "goa_human.gaf")
    return folder


@pytest.fixture(scope="session")
def cross_source_agent(cross_source_graph: tuple[GraphStore, Settings]) -> GraphAgent:
    """The agent on the cross-source graph, built as the CLI builds it (its lexicon once)."""
    store, own = cross_source_graph
    return GraphAgent.connect(store, own)
