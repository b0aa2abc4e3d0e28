"""A source is one module and one registry entry (decision 0032, docs/developing.md): Reactome's
gene → pathway file, written in the tests (``reactome_source.py``) and registered by one entry,
is licence-gated, built by the CLI from its shared sample, refreshed after asking its release
marker, and deployed on its schedule in a real Prefect work pool, with no other file touched
(there is no prefect.yaml to add it to)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import reactome_source
import typer
from prefect.client.orchestration import get_client
from typer.testing import CliRunner
from upstream import Upstream

from biokg.cli.app import create_app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.flows.deploy import deployments, send
from biokg.ingest.bridge import mappings_dir
from biokg.ingest.sources import SOURCES

#: Real rows of NCBI2Reactome.txt (NCBI Gene 7157 TP53, 1956 EGFR, 3630 INS, mouse 13649 Egfr)
ROWS = [
    "7157\tR-HSA-3700989\thttps://reactome.org/PathwayBrowser/#/R-HSA-3700989\t"
    "Transcriptional Regulation by TP53\tTAS\tHomo sapiens",
    "1956\tR-HSA-177929\thttps://reactome.org/PathwayBrowser/#/R-HSA-177929\t"
    "Signaling by EGFR\tTAS\tHomo sapiens",
    "13649\tR-MMU-177929\thttps://reactome.org/PathwayBrowser/#/R-MMU-177929\t"
    "Signaling by EGFR\tIEA\tMus musculus",
]
#: the next release adds INS (NCBIGene:3630) to its receptor's pathway
NEW_ROW = (
    "3630\tR-HSA-74752\thttps://reactome.org/PathwayBrowser/#/R-HSA-74752\t"
    "Signaling by Insulin receptor\tTAS\tHomo sapiens"
)
runner = CliRunner()


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The one registry entry: what adding the module to ingest/sources/__init__.py gives."""
    monkeypatch.setitem(SOURCES, reactome_source.SOURCE.name, reactome_source)
    return reactome_source


@pytest.fixture
def publisher() -> Iterator[Upstream]:
    """Reactome's servers played on loopback, publishing release 95."""
    upstream = Upstream()
    http = upstream.serve()
    upstream.put("/reactome/version", b"95\n", at=1.7e9)
    text = "\n".join([*ROWS, NEW_ROW]) + "\n"
    upstream.put(f"/reactome/{reactome_source.MAPPING_FILE}", text.encode(), at=1.7e9)
    yield upstream
    http.shutdown()


def _shared_sample(folder: Path) -> Path:
    """A shared data folder holding release 94 where the source's entry says."""
    (folder / "reactome").mkdir(parents=True)
    (folder / "reactome" / reactome_source.MAPPING_FILE).write_text("\n".join(ROWS) + "\n")
    (folder / "reactome" / "version").write_text("94\n")
    return folder


def _invoke(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    result = runner.invoke(create_app(args), args, env=env)
    return result.exit_code, result.output


def _options(command: str) -> set[str]:
    """The option names of ``biokg <command>`` as the app made now has them."""
    group = typer.main.get_command(create_app([command]))
    return {name for param in group.commands[command].params for name in param.opts}


def _reactome_edges(settings: Settings) -> list[tuple[str, str, str]]:
    with GraphStore.connect(settings) as store:
        rows = store.read(
            "MATCH (g:Gene)-[r:PARTICIPATES_IN {source: 'infores:reactome'}]->(p:Pathway) "
            "RETURN g.id AS gene, p.id AS pathway, r.source_version AS version"
        )
    return sorted((r["gene"], r["pathway"], r["version"]) for r in rows)


def test_a_source_of_one_module_and_one_entry_is_gated_built_refreshed_and_scheduled(
    registered: ModuleType,
    publisher: Upstream,
    own_graph_settings: Settings,
    work_pool: str,
    tmp_path: Path,
) -> None:
    env = {
        **settings_env(own_graph_settings),
        "BIOKG_SHARED_DATA": str(_shared_sample(tmp_path / "shared")),
        # the disease bridge that follows every build reads MONDO's real mapping sets
        "BIOKG_MONDO_DIR": str(mappings_dir(own_graph_settings, offline=True)),
    }
    build = ["build", "--sources", "reactome", "--no-embed"]

    # licence-gated: its terms name its own flag, and nothing is built without it
    code, output = _invoke(build, env)
    assert code == 1 and "--accept-reactome-license" in output, output
    assert "--accept-reactome-license" in _options("build") & _options("refresh")
    assert _reactome_edges(own_graph_settings) == []

    # built from the shared sample Settings resolves (BIOKG_SHARED_DATA), human rows only
    code, output = _invoke([*build, "--accept-reactome-license"], env)
    assert code == 0, output
    assert _reactome_edges(own_graph_settings) == [
        ("NCBIGene:1956", "REACT:R-HSA-177929", "94"),
        ("NCBIGene:7157", "REACT:R-HSA-3700989", "94"),
    ]

    # refreshed: its marker asked on the mirror, release 95 downloaded and loaded as a delta;
    # then unchanged on the marker's 304, nothing downloaded again
    mirror = {
        **env,
        "BIOKG_REACTOME_URL": f"{publisher.url}/reactome",
        "BIOKG_REACTOME_ACCEPT_LICENSE": "1",
    }
    refresh = ["refresh", "--sources", "reactome", "--offline", "--sample", "--no-embed"]
    code, output = _invoke([*refresh, "--output", "json"], mirror)
    assert code == 0, output
    [report] = [r for r in json.loads(output) if r["source"] == "reactome"]
    assert (report["status"], report["version_before"], report["version_after"]) == (
        "updated",
        "94",
        "95",
    )
    assert (report["upstream"], report["edges_added"], report["edges_removed"]) == ("95", 1, 0)
    assert ("NCBIGene:3630", "REACT:R-HSA-74752", "95") in _reactome_edges(own_graph_settings)
    code, output = _invoke([*refresh, "--output", "json"], mirror)
    [again] = [r for r in json.loads(output) if r["source"] == "reactome"]
    assert code == 0 and again["status"] == "unchanged", output
    assert publisher.statuses("/reactome/version")[-1] == 304

    # scheduled: a deployment of its own on its declared cron, sent to a process work pool as
    # ``python -m biokg.flows.deploy --pool`` sends them (the served ones are the same list)
    assert "refresh-reactome" in [d.name for d in deployments()]
    send(work_pool)
    with get_client(sync_client=True) as client:
        stored = client.read_deployment_by_name("refresh/refresh-reactome")
    assert (stored.work_pool_name, stored.entrypoint) == (
        work_pool,
        "biokg.flows.refresh.refresh_flow",
    )
    assert stored.parameters == {"sources": ["reactome"]}
    assert [s.schedule.cron for s in stored.schedules] == [registered.SOURCE.schedule]
