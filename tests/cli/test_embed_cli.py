"""``biokg embed`` and the embedding step of ``biokg build``, run in-process.

``biokg build`` embeds everything new in the graph, and by now the session graph may hold the
full HPO release (API and agent fixtures load it), so the build test runs on a graph of its own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, ORG_HS_DB, debian_file, write_gaf

runner = CliRunner()


def test_embed_reports_new_nodes_then_nothing_to_do(store: GraphStore, settings: Settings) -> None:
    # Anatomy: a label no offline source loads, so this test owns every node of it.
    store.write("CREATE (:Entity:Anatomy {id: 'UBERON:9900101', name: 'embedding probe gland'})")
    try:
        args = ["embed", "--hashing", "--labels", "Anatomy"]
        first = runner.invoke(app, args, env=settings_env(settings))
        assert first.exit_code == 0, first.output
        assert "embeddings: 1 nodes embedded, 0 from the cache, 0 unchanged" in first.output
        second = runner.invoke(app, args, env=settings_env(settings))
        assert "embeddings: 0 nodes embedded, 0 from the cache, 1 unchanged" in second.output
    finally:
        store.write("MATCH (n:Entity {id: 'UBERON:9900101'}) DETACH DELETE n")


def test_label_without_embedded_text_is_a_one_line_error(settings: Settings) -> None:
    result = runner.invoke(app, ["embed", "--labels", "Label"], env=settings_env(settings))
    assert result.exit_code == 1
    assert "'Label' embeds no text" in result.output and "Traceback" not in result.output


def test_build_embeds_every_new_node_by_default(
    own_graph_settings: Settings, tmp_path: Path, test_data_cache: Path
) -> None:
    shutil.copy(debian_file(*GOSLIM_PLANT, test_data_cache), tmp_path / "go-basic.obo")
    write_gaf(debian_file(*ORG_HS_DB, test_data_cache), tmp_path / "goa_human.gaf", slice_genes=20)
    env = settings_env(own_graph_settings)
    built = runner.invoke(
        app, ["build", "--sources", "go", "--data-dir", str(tmp_path), "--sample"], env=env
    )
    assert built.exit_code == 0, built.output
    with GraphStore.connect(own_graph_settings) as store:
        [row] = store.read(
            "MATCH (n:Entity) RETURN count(n) AS nodes, count(n.embedding) AS embedded"
        )
    assert row["nodes"] == row["embedded"] > 100  # GO slim terms and annotated genes
    assert f"embeddings: {row['embedded']} nodes embedded" in " ".join(built.output.split())
