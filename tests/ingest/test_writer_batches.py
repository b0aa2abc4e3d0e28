"""Write batches are bounded by text as well as by rows: a batch of long label sections must stay
under the embedded engine's Bolt message limit (16 MiB), past which it drops the connection and
the driver waits forever for an answer."""

from __future__ import annotations

import polars as pl

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.ingest.records import Records, Release
from biokg.ingest.writer import BATCH_TEXT_BYTES, GraphWriter, batches
from biokg.schema import load_schema

SECTION_BYTES = 1_000_000  # a long section (full prescribing information runs to ~100 kB)


def sections(count: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [f"DAILYMED:set-{i}#34084-4" for i in range(count)],
            "section": ["adverse_reactions"] * count,
            "text": [f"{i} " + "x" * SECTION_BYTES for i in range(count)],
        }
    )


def test_batches_end_where_rows_or_text_add_up() -> None:
    frame = sections(25)
    ends = [done for done, _ in batches(frame, 10)]
    per_batch = BATCH_TEXT_BYTES // SECTION_BYTES - 1  # each text is a little over SECTION_BYTES
    assert ends[:3] == [per_batch, 2 * per_batch, 3 * per_batch] and ends[-1] == 25
    assert [done for done, _ in batches(frame.select("id"), 10)] == [10, 20, 25]
    assert list(batches(frame.clear(), 10)) == []


def test_twenty_megabytes_of_sections_load_in_bounded_batches(own_graph_settings: Settings) -> None:
    release = Release("infores:openfda", "test", "CC0", {"labels.json": "abc"})
    frame = sections(24)  # 24 MB of text: one batch of 10,000 rows would be refused
    with GraphStore.connect(own_graph_settings) as store:
        store.apply_schema(load_schema())
        writer = GraphWriter(store, load_schema(), batch_size=10_000)
        result = writer.load(Records(nodes={"LabelSection": frame}), release)
        assert result.nodes_created == 24
        [row] = store.read(
            "MATCH (s:LabelSection) RETURN count(s) AS n, sum(size(s.text)) AS chars"
        )
    assert row["n"] == 24 and row["chars"] == frame["text"].str.len_chars().sum()
