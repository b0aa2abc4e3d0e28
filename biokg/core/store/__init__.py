"""Graph-store access shared by ingest and the agent: one driver, one dialect, no I/O on import.

Everything talks to the graph through the official ``neo4j`` driver: Neo4j 5 when
``BIOKG_NEO4J_URI`` is set, otherwise the embedded ArcadeDB engine over its Bolt plugin (a server
process owned by the command, or shared through ``biokg db start``). Engine differences live in
:mod:`biokg.core.store.dialect` only.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import neo4j
import orjson
from neo4j import GraphDatabase, Query, RoutingControl
from neo4j.exceptions import (
    ClientError,
    ConnectionAcquisitionTimeoutError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import embedded
from biokg.core.store.dialect import ARCADEDB, NEO4J, Dialect, IndexStatement
from biokg.core.streams import read_ahead
from biokg.errors import (
    FREE_SPACE,
    DiskFullError,
    QueryTimeoutError,
    StoreError,
    StoreUnavailableError,
    UnsafeCypherError,
    low_on_space,
)
from biokg.schema import GraphSchema

log = logging.getLogger(__name__)
T = TypeVar("T")

READ_TIMEOUT_S = 30.0
#: Rows a page of :meth:`GraphStore.scan_edges` holds (one JSON reply, ~8 MB).
SCAN_PAGE_ROWS = 50_000
#: How ArcadeDB names the type of a node with several labels (``Disease~Entity``).
MULTI_LABEL_SEPARATOR = "~"
#: How much longer than its timeout the client waits for a generated query before it gives up
#: (the engine's own stop, at the same timeout, normally answers first).
ABANDON_GRACE_S = 0.5
#: How long opening a connection may take (TCP connect, Bolt handshake and login together), and
#: how long a query waits for a pooled one. The driver's 30 s and 60 s made a dead or stalled
#: engine look like a slow query; a healthy one, even a remote Neo4j, connects in milliseconds.
CONNECT_TIMEOUT_S = 5.0
#: The driver's first pause before it retries a failed transaction (its own default); a shorter
#: retry budget (:attr:`Settings.retry_s`) pauses a quarter of the budget instead.
FIRST_RETRY_DELAY_S = 1.0
#: What a failed connection's errors are: the engine is gone, stalled, or the pool is held by
#: work it stopped answering.
_UNREACHABLE = (ServiceUnavailable, SessionExpired, ConnectionAcquisitionTimeoutError)
#: How ArcadeDB begins the message of a Cypher statement it failed to run, whatever the cause.
_CYPHER_FAILED = "Error executing Cypher command"
#: What to do when the engine's disk is full (:class:`DiskFullError`): what a failed write left
#: is what a re-run redoes (a build's loads become current only once complete; a refresh's
#: changes are one transaction).
DISK_FULL_REMEDY = (
    f"{FREE_SPACE}: a build goes on from the last load it completed, a refresh writes its "
    "changes again"
)


class GraphStore:
    """A connected graph store. Build it with :meth:`connect`; close it when done."""

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str,
        dialect: Dialect,
        *,
        http: tuple[str, str] | None = None,
        engine: str = "the graph store",
        remedy: str = "check that it is running",
        data_dir: Path | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.dialect = dialect
        self._http = http  # (base URL, basic-auth header) of ArcadeDB's HTTP API
        #: what the engine is and where (``the embedded graph engine (ArcadeDB at bolt://…)``),
        #: and what to do when it does not answer: for messages (:meth:`unavailable`)
        self.engine = engine
        self.remedy = remedy
        #: the engine's database folder where this process can see it (the embedded engine's
        #: ``root``): a write it refused while that disk is full is reported as such
        self.data_dir = data_dir
        #: write transactions and engine write requests sent through this store (a refresh
        #: reports its writes from it)
        self.writes = 0

    @classmethod
    def connect(cls, settings: Settings) -> GraphStore:
        """Connect to Neo4j (``BIOKG_NEO4J_URI``) or to the embedded engine.

        The embedded engine is reached through its running server (``biokg db start``) when
        there is one; otherwise a server owned by this process is started and stopped at exit.

        Raises:
            StoreUnavailableError: the server cannot be reached.
            StoreError: the embedded engine failed to start.
        """
        if not settings.embedded:
            uri = settings.neo4j_uri
            auth = (settings.neo4j_user, settings.neo4j_password)
            store = cls(
                _driver(uri, auth, settings),
                settings.database_name,
                NEO4J,
                engine=f"the Neo4j server at {uri}",
                remedy="check that it is running and reachable, then retry; a running `biokg "
                "serve` or `biokg mcp` reconnects by itself",
            )
        else:
            info = embedded.use_server(settings)
            _warn_on_looser_limit(info, settings)
            auth = ("root", settings.embedded_password)
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
            store = cls(
                _driver(info.bolt_uri, auth, settings),
                settings.database_name,
                ARCADEDB,
                http=(info.http_url, f"Basic {token}"),
                engine=f"the embedded graph engine (ArcadeDB at {info.bolt_uri})",
                remedy="start it with `biokg db start` (if it hangs, `biokg db stop` first), "
                "then retry; a running `biokg serve` or `biokg mcp` reconnects by itself",
                data_dir=Path(info.root),
            )
        store.ping()
        return store

    def ping(self) -> None:
        """Fail early, naming the engine and what to do, when it does not answer.

        Raises:
            StoreUnavailableError: the engine is unreachable or refused the liveness query.
        """
        try:
            self.read("RETURN 1 AS ok")
        except StoreUnavailableError:
            raise
        except StoreError as err:
            raise self.unavailable(f"it refused a liveness query: {err}") from err

    def unavailable(self, reason: str) -> StoreUnavailableError:
        """The error for an engine that does not answer: which engine, why, and what to do (the
        API answers it with 503 and Retry-After)."""
        return StoreUnavailableError(f"{self.engine} is not answering: {reason}; {self.remedy}")

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- queries ---------------------------------------------------------------------------
    def read(
        self,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = READ_TIMEOUT_S,
        rollback: bool = False,
    ) -> list[dict[str, Any]]:
        """Run a read query (READ routing, a timeout) and return its rows as dicts.

        Args:
            rollback: run in an explicit READ transaction that is always rolled back, never
                committed, and refuse the rows if the engine reports any update. A safety net for
                generated Cypher on engines that do not enforce READ sessions (ArcadeDB).

        Raises:
            StoreError: the engine rejected the query; the message carries the engine's reason.
            UnsafeCypherError: with ``rollback``, the engine reported updates (rolled back).
        """
        if rollback:
            return self._read_rolled_back(cypher, params or {}, timeout_s)
        with self._errors(cypher, timeout_s=timeout_s):
            result = self.driver.execute_query(
                Query(cypher, timeout=timeout_s),
                params or {},
                routing_=RoutingControl.READ,
                database_=self.database,
            )
        return [record.data() for record in result.records]

    def stream(self, cypher: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Rows of a read query one by one as the driver fetches them, for results too large to
        hold at once (an export of the whole graph). No timeout: the caller reads to the end.

        Values come as the driver decodes them: the query must return scalars, lists and maps,
        not nodes or relationships (``record.data()``'s recursive copy, which would turn those
        into dicts, took half the client's time of an export's read).

        Raises:
            StoreError: the engine rejected the query or failed while streaming.
        """
        with (
            self._errors(cypher),
            self.driver.session(
                database=self.database, default_access_mode=neo4j.READ_ACCESS
            ) as session,
        ):
            for record in session.run(cypher, params or {}):
                yield dict(record)

    def _read_rolled_back(
        self, cypher: str, params: dict[str, Any], timeout_s: float
    ) -> list[dict[str, Any]]:
        """Run a generated query in a worker thread and stop waiting after ``timeout_s``.

        The engine is told the same timeout (Neo4j stops the transaction; ArcadeDB only honours
        its engine-wide command limit, ``BIOKG_COMMAND_TIMEOUT_S``), but a client that waits on
        the engine alone waits as long as the engine lets the query run; this one gives up.

        Raises:
            QueryTimeoutError: no answer within ``timeout_s`` (the worker is abandoned and ends
                when the engine stops the query).
        """
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["rows"] = self._rolled_back(cypher, params, timeout_s)
            except Exception as err:  # handed to the caller's thread, raised there
                outcome["error"] = err

        worker = threading.Thread(target=work, name="biokg-generated-query", daemon=True)
        worker.start()
        worker.join(timeout_s + ABANDON_GRACE_S)
        if worker.is_alive():
            raise QueryTimeoutError(_timeout_message(cypher, timeout_s))
        if "error" in outcome:
            raise outcome["error"]
        return outcome["rows"]

    def _rolled_back(
        self, cypher: str, params: dict[str, Any], timeout_s: float
    ) -> list[dict[str, Any]]:
        with (
            self._errors(cypher, timeout_s=timeout_s),
            self.driver.session(
                database=self.database, default_access_mode=neo4j.READ_ACCESS
            ) as session,
        ):
            tx = session.begin_transaction(timeout=timeout_s)
            try:
                result = tx.run(cypher, params)
                rows = [record.data() for record in result]
                summary = result.consume()
            finally:
                if not tx.closed():
                    tx.rollback()  # a transaction's context manager would commit: never here
        counters = summary.counters
        if (
            summary.query_type != "r"
            or counters.contains_updates
            or counters.contains_system_updates
        ):
            raise UnsafeCypherError(
                f"the engine reported updates (query type {summary.query_type!r}, {counters}); "
                "the transaction was rolled back"
            )
        return rows

    def explain(
        self,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = READ_TIMEOUT_S,
    ) -> list[str]:
        """EXPLAIN ``cypher`` (nothing runs): why its plan is not read-only, [] when it is.

        Raises:
            StoreError: the engine cannot plan it (syntax, unknown procedure): its reason.
        """
        with self._errors(cypher, timeout_s=timeout_s):
            result = self.driver.execute_query(
                Query(f"EXPLAIN {cypher}", timeout=timeout_s),
                params or {},
                routing_=RoutingControl.READ,
                database_=self.database,
            )
        return self.dialect.plan_writes(result.summary.query_type, result.summary.plan)

    def write(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one write statement in its own transaction and return its rows."""
        return self.in_transaction(lambda tx: tx.run(cypher, params or {}).data())

    def in_transaction(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        """Run ``work`` in one managed write transaction: all of it commits, or none of it."""
        self.writes += 1
        with (
            self._errors("write transaction", write=True),
            self.driver.session(database=self.database) as s,
        ):
            return s.execute_write(work)

    @contextmanager
    def _errors(
        self, what: str, *, timeout_s: float | None = None, write: bool = False
    ) -> Iterator[None]:
        try:
            yield
        except _UNREACHABLE as err:
            self._check_space(err, stopped=True)
            raise self.unavailable(" ".join(str(err).split())) from err
        except Neo4jError as err:
            # ArcadeDB answers a commit it could not write with a client error as often as
            # not (Neo.ClientError.Transaction.TransactionNotFound "Transaction error on commit")
            if write or not isinstance(err, ClientError):
                self._check_space(err.message or err)
            code = err.code or ""
            timed_out = "TransactionTimedOut" in code or "Transaction.Terminated" in code
            if timed_out and timeout_s is not None:  # a read: the caller's time limit
                raise QueryTimeoutError(
                    _timeout_message(what, timeout_s) + f" (engine: {err.message or err})"
                ) from err
            hint = " (the engine's time limit per command: BIOKG_COMMAND_TIMEOUT_S)" * timed_out
            raise StoreError(
                f"{err.message or err}{hint} [while running: {_first_line(what)}]"
            ) from err

    def _check_space(self, cause: object, *, stopped: bool = False) -> None:
        """Raise :class:`DiskFullError` naming the engine's database folder when a write
        failed and that disk is (nearly) full: the engine sends a client no more than "Error
        executing Cypher command" for its ``No space left on device``."""
        if self.data_dir is not None and low_on_space(self.data_dir):
            doing = (
                "the graph engine stopped answering"
                if stopped
                else "the graph engine could not write its database; the write was not committed"
            )
            said = str(cause)
            if said.startswith(_CYPHER_FAILED):  # the rest quotes the whole statement
                said = _CYPHER_FAILED
            raise DiskFullError.on(self.data_dir, doing, DISK_FULL_REMEDY, cause=said)

    # -- schema ----------------------------------------------------------------------------
    def apply_schema(self, schema: GraphSchema) -> None:
        """Create uniqueness constraints, then full-text and vector indexes (idempotent).

        Constraints come first so that every later MERGE runs on an indexed key.
        """
        for statement in constraint_statements(schema):
            self.write(statement)
        self.run_ddl(
            [
                *self.dialect.prepare_indexes(schema),
                *self.dialect.fulltext_indexes(schema),
                *self.dialect.vector_indexes(schema),
            ]
        )

    def run_ddl(self, statements: list[IndexStatement]) -> None:
        """Run DDL statements in the language their dialect wrote them in, in order. SQL ones
        go as one script: ArcadeDB takes a request per command otherwise, and 60 of them took
        4.3 s on a fresh graph against 2.1 s as one script (0.5 s against 0.05 s once they
        exist)."""
        sql: list[str] = []
        for statement in statements:
            if statement.language == "cypher":
                self._sql_script(sql)
                sql = []
                self.write(statement.text)
            else:
                sql.append(statement.text)
        self._sql_script(sql)

    def _sql_script(self, commands: list[str]) -> None:
        if not commands:
            return
        script = ";\n".join(commands)
        body = json.dumps({"language": "sqlscript", "command": script}).encode()
        what = repr(commands[0]) if len(commands) == 1 else f"{len(commands)} DDL commands"
        self._post("command", body, "application/json", what=what)

    # -- ArcadeDB's HTTP API: bulk edges and paged SQL scans (the embedded engine) ----------
    @property
    def http_api(self) -> bool:
        """Whether the engine has ArcadeDB's HTTP API: the batch edge loader
        (:meth:`create_edges_bulk`) and the paged SQL scans (:meth:`scan_nodes`)."""
        return self._http is not None

    def node_handles(self, label: str) -> dict[str, str]:
        """Every ``label`` node's id → the engine's record id (``elementId``), read in one scan
        (cheaper than a lookup per id): with :meth:`scan_nodes` where the engine has its HTTP
        API (3-7 times the rate of the same read over Bolt on the quick-start graph), else with
        Cypher. ``label`` must be a schema/ label (it is substituted)."""
        if self._http is not None:
            return {row["id"]: row["rid"] for row in self.scan_nodes(label, ["id"])}
        query = f"MATCH (n:{label}) RETURN n.id AS id, elementId(n) AS handle"
        rows = self.read(query, timeout_s=READ_TIMEOUT_S * 10)
        return {row["id"]: row["handle"] for row in rows}

    def scan_edges(
        self,
        rel_type: str,
        columns: Sequence[str] | None = ("id", "source"),
        *,
        page: int = SCAN_PAGE_ROWS,
    ) -> Iterator[dict[str, Any]]:
        """Every ``rel_type`` edge as ``{"out", "in", *columns}`` (ends as the engine's record
        ids, as :meth:`node_handles` and :meth:`scan_nodes` give them; a property the edge does
        not hold is None; ``columns=None``: every property it holds), read with ArcadeDB's SQL
        in pages by record id: 4-6 times the rows per second of the same read over Bolt
        (``benchmarks/bench_engine_read.py``). ``rel_type`` and ``columns`` are substituted: a
        type name the engine reported (``db.relationshipTypes()``) or schema/ declares, and
        property names schema/ declares.

        Raises:
            StoreError: the engine has no HTTP API (Neo4j), or refused the query.
        """
        ends = ["@out AS `out`", "@in AS `in`"]
        yield from self._scan(rel_type, ends, columns, page)

    def scan_nodes(
        self, label: str, columns: Sequence[str] | None, *, page: int = SCAN_PAGE_ROWS
    ) -> Iterator[dict[str, Any]]:
        """Every ``label`` node as ``{"rid", "labels", *columns}``: its record id (what
        :meth:`scan_edges` gives as an edge's ends), its labels, and the properties named (None
        where the node has none; ``columns=None``: every property it holds); read as
        :meth:`scan_edges` reads edges. A label's scan holds the nodes that have other labels
        too (the engine's types are polymorphic)."""
        for row in self._scan(label, ["@type AS `type`"], columns, page):
            row["labels"] = row.pop("type").split(MULTI_LABEL_SEPARATOR)
            yield row

    def _scan(
        self, type_name: str, fields: list[str], columns: Sequence[str] | None, page: int
    ) -> Iterator[dict[str, Any]]:
        """The records of one type with ``rid``, ``fields`` and the properties ``columns`` (all
        of them when None), one SQL query per page of ``page`` records, each page after the
        last record id of the one before. The next page is asked for while the caller reads
        this one (its record id found in the reply's text, :func:`_last_rid`), so the engine and
        the caller work at once."""
        whole = columns is None
        projection = [*fields, "@this AS `record`"] if whole else [*fields, *_sql_names(columns)]
        for reply in read_ahead(self._scan_replies(type_name, projection, page), batch=1, depth=2):
            for row in orjson.loads(reply)["result"]:
                if whole:
                    record = row.pop("record")
                    row.update((k, v) for k, v in record.items() if not k.startswith("@"))
                yield row

    def _scan_replies(self, type_name: str, projection: list[str], page: int) -> Iterator[bytes]:
        if not self._has_type(type_name):
            return  # nothing of it written yet: no records, as a Cypher MATCH would find
        last = None
        while True:
            after = f"WHERE @rid > {last} " if last else ""
            command = (
                f"SELECT @rid AS rid, {', '.join(projection)} FROM `{type_name}` "
                f"{after}ORDER BY @rid LIMIT {page}"
            )
            body = json.dumps({"language": "sql", "command": command}).encode()
            reply = self._post("query", body, "application/json", what=repr(command), write=False)
            yield reply
            last = _last_rid(reply)
            if last is None:  # an empty page: past the last record
                return

    def _has_type(self, type_name: str) -> bool:
        """Whether the engine's schema holds this type: its SQL refuses a query of a type that
        was never created (a graph nothing was loaded into), where Cypher finds nothing."""
        command = "SELECT name FROM schema:types WHERE name = :name"
        return bool(self.sql_read(command, {"name": type_name}))

    # -- what the graph holds (``biokg status``, the exports) -------------------------------
    def relationship_types(self) -> list[str]:
        """The relationship types the graph holds, sorted (the exports read one type per
        query; the names are the engine's own, safe to quote as names)."""
        return sorted(r["type"] for r in self.read(cypher.load("relationship_types")))

    def label_counts(self) -> dict[str, int]:
        """Entity nodes per label (a node's labels but ``Entity``), sorted by label."""
        if self._http is None:
            return {r["label"]: r["count"] for r in self.read(cypher.load("status_labels"))}
        counts: dict[str, int] = {}
        if not self._has_type("Entity"):
            return counts  # nothing loaded yet
        by_type = "SELECT @type AS type, count(*) AS count FROM Entity GROUP BY @type"
        for row in self.sql_read(by_type):
            for label in row["type"].split(MULTI_LABEL_SEPARATOR):
                if label != "Entity":
                    counts[label] = counts.get(label, 0) + row["count"]
        return dict(sorted(counts.items()))

    def relationship_counts(self) -> list[dict[str, Any]]:
        """Edges per relationship type and source (``type``, ``source``, ``count``), sorted by
        type then source (an edge without one last). On the embedded engine one SQL count per
        type instead of Cypher's scan of every edge."""
        if self._http is None:
            return self.read(cypher.load("status_relationships"))
        rows = [
            {"type": rel_type, "source": row.get("source"), "count": row["count"]}
            for rel_type in self.relationship_types()
            for row in self.sql_read(
                f"SELECT source, count(*) AS count FROM `{rel_type}` GROUP BY source"
            )
        ]
        return sorted(rows, key=lambda r: (r["type"], r["source"] is None, r["source"] or ""))

    def sql_read(self, command: str, params: dict[str, Any] | None = None) -> list[dict]:
        """The rows of one read-only query in ArcadeDB's SQL (the embedded engine's HTTP API):
        for counts that Cypher answers with a scan of every edge (``biokg status``).

        Raises:
            StoreError: the engine has no HTTP API (Neo4j), or refused the query.
        """
        body = json.dumps({"language": "sql", "command": command, "params": params or {}})
        reply = self._post("query", body.encode(), "application/json", what=command, write=False)
        return orjson.loads(reply)["result"]

    def export_jsonl(self, name: str, types: Sequence[str]) -> dict[str, Any]:
        """The records of ``types`` written by the engine itself (``EXPORT DATABASE``, format
        JSONL, always gzipped) into its exports folder, ``<BIOKG_HOME>/arcadedb/exports/<name>``
        (replaced if there); the engine's report (``edges``, ``elapsedInSecs``). The road decision
        0033 measured against :meth:`scan_edges` (``benchmarks/bench_engine_export.py``).
        ``name`` and ``types`` are substituted: a plain file name, and names the engine reported.

        Raises:
            StoreError: the engine has no HTTP API (Neo4j), or refused the export.
        """
        command = (
            f"EXPORT DATABASE file://{name} WITH format = 'jsonl', overwrite = true, "
            f"includeTypes = '{','.join(types)}'"
        )
        body = json.dumps({"language": "sql", "command": command}).encode()
        reply = self._post("command", body, "application/json", what=repr(command), write=False)
        return orjson.loads(reply)["result"][0]

    def create_edges_bulk(self, ndjson: bytes) -> int:
        """Create the edges of one NDJSON payload (``@type: edge``, ``@class``, ``@from`` and
        ``@to`` as record ids from :meth:`node_handles`, then properties) in the engine's batch
        loader; returns how many it created. Unique indexes hold as for any write."""
        reply = self._post("batch", ndjson, "application/x-ndjson", what="a bulk edge load")
        return int(json.loads(reply)["edgesCreated"])

    def _post(
        self, endpoint: str, body: bytes, content_type: str, *, what: str, write: bool = True
    ) -> bytes:
        if self._http is None:
            raise StoreError(f"{self.dialect.name} has no HTTP API for {what}")
        base, auth = self._http
        if write:
            self.writes += 1
        request = urllib.request.Request(
            f"{base}/api/v1/{endpoint}/{self.database}",
            data=body,
            headers={"Authorization": auth, "Content-Type": content_type},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            detail = err.read().decode(errors="replace")[:300]
            if write or err.code >= 500:
                self._check_space(f"ArcadeDB refused {what}: {detail}")
            raise StoreError(f"ArcadeDB refused {what}: {detail}") from err
        except urllib.error.URLError as err:
            raise StoreUnavailableError(f"ArcadeDB HTTP API at {base} unreachable: {err}") from err


def _driver(uri: str, auth: tuple[str, str | None], settings: Settings) -> neo4j.Driver:
    """A driver that fails fast on an engine it cannot reach: a connection opens within
    :data:`CONNECT_TIMEOUT_S` or the attempt fails, and a failed transaction is retried for
    ``settings.retry_s`` only (a served engine: half a second, so a dead engine answers a
    request at once, while a connection the restarted engine dropped is still retried)."""
    return GraphDatabase.driver(
        uri,
        auth=auth,
        connection_timeout=CONNECT_TIMEOUT_S,
        connection_acquisition_timeout=CONNECT_TIMEOUT_S,
        max_transaction_retry_time=settings.retry_s,
        initial_retry_delay=min(FIRST_RETRY_DELAY_S, settings.retry_s / 4),
    )


def _warn_on_looser_limit(info: embedded.ServerInfo, settings: Settings) -> None:
    """Say so when a shared engine stops commands later than these settings ask (a served
    agent attached to a `biokg db start` engine with the build-time limit)."""
    wanted, actual = settings.command_timeout_s, info.command_timeout_s
    if wanted > 0 and (actual == 0 or actual > wanted):
        log.warning(
            "the running embedded engine (pid %d) stops commands after %s, not %d s: queries "
            "clients send may hold it that long; restart it with BIOKG_COMMAND_TIMEOUT_S=%d",
            info.pid,
            f"{actual} s" if actual else "no limit (or an unknown one)",
            wanted,
            wanted,
        )


def _last_rid(reply: bytes) -> str | None:
    """The record id of a scan page's last row, read from the reply's text without parsing it:
    each row is an object whose first key is ``rid`` (:meth:`GraphStore._scan` projects it
    first; a property's string holding the same text would have its quotes escaped)."""
    at = reply.rfind(_RID_KEY)
    if at < 0:
        return None
    start = at + len(_RID_KEY)
    return reply[start : reply.index(b'"', start)].decode()


_RID_KEY = b'{"rid":"'


def _sql_names(names: Sequence[str]) -> list[str]:
    """Property names quoted for ArcadeDB's SQL (``references`` and others are keywords)."""
    return [f"`{name}`" for name in names]


def _first_line(what: str) -> str:
    return what.strip().splitlines()[0][:120] if what.strip() else what


def _timeout_message(what: str, timeout_s: float | None) -> str:
    limit = f"its {timeout_s:g} s limit" if timeout_s else "the engine's time limit per command"
    return (
        f"the query ran past {limit} and was stopped [while running: {_first_line(what)}]; "
        "narrow it: anchor a node by id, bound paths, or aggregate less (embedded engine: "
        "BIOKG_COMMAND_TIMEOUT_S is its limit per command)"
    )


def constraint_statements(schema: GraphSchema) -> list[str]:
    """Uniqueness constraints on ``id``: :Entity, every label, every relationship type, releases;
    and the index on a release's ``current`` flag.

    The same Cypher runs on Neo4j 5 and ArcadeDB; ``cypher/constraints.cypher`` is generated
    from it.
    """
    out = ["CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE"]
    out += [
        f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"
        for label in sorted(schema.labels)
    ]
    out.append(
        "CREATE CONSTRAINT source_version_id IF NOT EXISTS "
        "FOR (n:SourceVersion) REQUIRE n.id IS UNIQUE"
    )
    # every question reads the current loads: without it, every load ever made is read (whole
    # records) to find them; at release size that was half of a 0.25 s read
    out.append(
        "CREATE INDEX source_version_current IF NOT EXISTS FOR (n:SourceVersion) ON (n.current)"
    )
    out += [
        f"CREATE CONSTRAINT {rel.lower()}_id IF NOT EXISTS "
        f"FOR ()-[r:{rel}]-() REQUIRE r.id IS UNIQUE"
        for rel in sorted(schema.types)
    ]
    return out


def neo4j_cypher_files(schema: GraphSchema) -> dict[str, str]:
    """constraints.cypher and indexes.cypher for Neo4j, for users to run in Neo4j Browser."""
    header = "// Generated from schema/ by `biokg schema cypher`; do not edit by hand.\n"
    indexes = [*NEO4J.fulltext_indexes(schema), *NEO4J.vector_indexes(schema)]
    return {
        "constraints.cypher": header + "".join(f"{s};\n" for s in constraint_statements(schema)),
        "indexes.cypher": header + "".join(f"{s.text};\n" for s in indexes),
    }
