"""Benchmark: how fast the embedded engine hands out one relationship type's edges, over Bolt
(the path every export took) and over ArcadeDB's own SQL on its HTTP API (engine-side reads).

The exports of issue 27 (KGX, ML) read edges through the driver, one type per query; their rate
cannot exceed what the engine serves that way. This prints rows/s for the same edges read five
ways, so the ceiling of each road is a number, not a guess:

* Bolt: the ML export's Cypher (``cypher/ml_edges.cypher``: ends' ids, type, id, source),
  then the edges' own ids alone (what a row costs over Bolt, whatever it carries);
* SQL, ids: ``SELECT @out.id, @in.id, id, source FROM <type>`` over HTTP (one JSON reply);
* SQL, record ids: ``SELECT @out, @in, id, source FROM <type>`` (ends as the engine's record
  ids, which an exporter would map to node ids from one node scan);
* the same paged by record id (``WHERE @rid > <last> ORDER BY @rid LIMIT 50000``), as a
  streaming exporter would read it, then that node scan (``SELECT @rid, id FROM Entity``);
* every property schema/ declares for the type, paged, as the whole-graph KGX export reads
  them: the engine's replies alone (rows counted in the text, nothing parsed: the engine's
  ceiling for that export), then parsed into rows (:meth:`GraphStore.scan_edges`).

    python benchmarks/bench_engine_read.py [--type HAS_PHENOTYPE]

Runs against the embedded graph the environment points at (``BIOKG_HOME``), engine running.
"""

from __future__ import annotations

import argparse
import base64
import json
import time
import urllib.request

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.export.kgx import exported_properties
from biokg.schema import load_schema


def sql_reply(settings: Settings, command: str) -> bytes:
    """The text of one SQL query's reply from the running engine's HTTP API."""
    info = embedded.running_server(settings)
    if info is None:
        raise SystemExit("no embedded engine is running for this BIOKG_HOME: biokg db start")
    token = base64.b64encode(f"root:{settings.embedded_password}".encode()).decode()
    request = urllib.request.Request(
        f"{info.http_url}/api/v1/query/{settings.database_name}",
        data=json.dumps({"language": "sql", "command": command, "limit": -1}).encode(),
        headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=3600) as reply:
        return reply.read()


def sql_rows(settings: Settings, command: str) -> list[dict]:
    """Rows of one SQL query over the running engine's HTTP API (the whole reply at once)."""
    return json.loads(sql_reply(settings, command))["result"]


def paged_rows(settings: Settings, rel: str, page: int = 50_000) -> int:
    """How many edges of ``rel`` a record-id-paged read returns (each row once)."""
    count, last = 0, None
    while True:
        after = f"WHERE @rid > {last} " if last else ""
        rows = sql_rows(
            settings,
            f"SELECT @rid AS rid, @out AS s, @in AS o, id, source FROM {rel} {after}"
            f"ORDER BY @rid LIMIT {page}",
        )
        if not rows:
            return count
        count, last = count + len(rows), rows[-1]["rid"]


def unparsed_pages(settings: Settings, rel: str, columns: list[str], page: int = 50_000) -> int:
    """How many edges of ``rel`` a record-id-paged read of ``columns`` returns, the replies
    never parsed: rows counted, and the next page's start found, in the text."""
    projection = ", ".join(f"`{c}`" for c in columns)
    count, last, key = 0, None, b'{"rid":"'
    while True:
        after = f"WHERE @rid > {last} " if last else ""
        reply = sql_reply(
            settings,
            f"SELECT @rid AS rid, @out AS s, @in AS o, {projection} FROM {rel} {after}"
            f"ORDER BY @rid LIMIT {page}",
        )
        rows = reply.count(key)
        if not rows:
            return count
        start = reply.rfind(key) + len(key)
        count, last = count + rows, reply[start : reply.index(b'"', start)].decode()


def timed(label: str, read, baseline: float | None = None) -> float:
    started = time.perf_counter()
    rows = read()
    seconds = time.perf_counter() - started
    rate = rows / seconds if seconds else 0.0
    ratio = f"  ({rate / baseline:.1f}x Bolt)" if baseline else ""
    print(f"{label:<18} {rows:>10,} rows {seconds:7.1f} s {rate:>10,.0f} rows/s{ratio}")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--type", default="HAS_PHENOTYPE", help="a relationship type of schema/")
    rel, schema = parser.parse_args().type, load_schema()
    if rel not in schema.types:
        parser.error(f"{rel} is not a relationship type of schema/")
    columns = exported_properties(schema, rel)
    settings = Settings.from_env()
    query = cypher.load("ml_edges").replace("-[r]->", f"-[r:{rel}]->", 1)
    only_ids = f"MATCH (:Entity)-[r:{rel}]->(:Entity) RETURN r.id AS id"
    with GraphStore.connect(settings) as store:
        bolt = timed(
            "Bolt (Cypher)", lambda: sum(1 for _ in store.stream(query, {"sources": None}))
        )
        timed("Bolt, edge ids", lambda: sum(1 for _ in store.stream(only_ids, {})), bolt)
    timed(
        "SQL, end ids",
        lambda: len(sql_rows(settings, f"SELECT @out.id AS s, @in.id AS o, id, source FROM {rel}")),
        bolt,
    )
    timed(
        "SQL, record ids",
        lambda: len(sql_rows(settings, f"SELECT @out AS s, @in AS o, id, source FROM {rel}")),
        bolt,
    )
    timed("SQL, paged", lambda: paged_rows(settings, rel), bolt)
    timed("SQL, node scan", lambda: len(sql_rows(settings, "SELECT @rid AS rid, id FROM Entity")))
    timed("SQL, all, unparsed", lambda: unparsed_pages(settings, rel, columns), bolt)
    with GraphStore.connect(settings) as store:
        timed("SQL, all, parsed", lambda: sum(1 for _ in store.scan_edges(rel, columns)), bolt)


if __name__ == "__main__":
    main()
