"""One frozen Settings object, built from BIOKG_* environment variables at each entry point.

Every setting is documented where it is declared: default, effect and danger.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from biokg.errors import ConfigError

#: Seconds a served request's failed transaction is retried (Settings.retry_s): three quick
#: tries, so a dead engine is reported within about a second (decision 0030).
SERVED_RETRY_S = 0.5


def _default_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "biokg"


def _default_shared_data() -> Path:
    """``../shared/data`` from the working directory: the project's shared/ folder beside the
    checkout, seen from the project root where the quick start and the tests run."""
    return Path.cwd().parent / "shared" / "data"


@dataclass(frozen=True)
class Settings:
    """Runtime configuration; pass it down, never read the environment elsewhere."""

    # BIOKG_HOME (default ~/.local/share/biokg): where the embedded database, the download
    # cache and the offline corpus (cache/go-corpus) live. Deleting it deletes the embedded graph.
    home: Path = field(default_factory=_default_home)
    # BIOKG_NEO4J_URI (default unset): a bolt:// or neo4j:// URI switches from the embedded
    # ArcadeDB engine to that Neo4j server. Unset means embedded.
    neo4j_uri: str | None = None
    # BIOKG_NEO4J_USER / BIOKG_NEO4J_PASSWORD (default neo4j / unset): credentials for Neo4j.
    # No stock password is assumed: a Neo4j URI without a password is a configuration error.
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    # BIOKG_NEO4J_DATABASE (default: "neo4j" on Neo4j, "kg" embedded).
    database: str | None = None
    # BIOKG_BOLT_PORT / BIOKG_HTTP_PORT (default 7688 / 2481): loopback ports of the embedded
    # engine's Bolt listener and HTTP API. Chosen apart from Neo4j's 7687 so both can coexist.
    bolt_port: int = 7688
    http_port: int = 2481
    # BIOKG_EMBEDDED_PASSWORD (default "biokg-local"): the embedded engine's root password.
    # It listens on 127.0.0.1 only; change it if other local users must not read the graph.
    embedded_password: str = "biokg-local"
    # BIOKG_JVM_HEAP (default 2g): heap of the embedded engine's JVM.
    jvm_heap: str = "2g"
    # BIOKG_BATCH_SIZE (default 10000): rows per UNWIND write transaction.
    batch_size: int = 10_000
    # BIOKG_BULK_LOAD (default 1; 0 = off): new edges go to the embedded engine through its bulk
    # endpoint (ArcadeDB's HTTP batch, endpoints resolved once per request) instead of UNWIND
    # CREATE over Bolt; the graph is the same either way. Ignored on Neo4j.
    bulk_load: bool = True
    # BIOKG_EMBEDDER (default static): the model of node vectors and of the names a question
    # searches by meaning: "static" (model2vec distilled from all-MiniLM-L6-v2, ~130x faster:
    # a first build embeds ~100,000 nodes in about a minute) or "transformer" (all-MiniLM-L6-v2
    # itself, ~90 nodes/s; on the development questions one answer more was right and one more
    # unanswerable question abstained, docs/decisions/0010-fast-first-build.md). Switching
    # re-embeds every node once (the vector cache keeps both models' vectors).
    embedder: str = "static"
    # BIOKG_LINKING (default guesses): how the agent decides that a name in a question is a node:
    # "guesses" (the fitted scorer judges every guess, a respelling or an index hit, and reports
    # a name the graph does not hold as unknown instead of linking a near namesake; exact names
    # link, but for a one-word name before an uncommon word of its phrase) or "scored" (exact
    # names of one word judged too); docs/decisions/0018-scored-linking.md has the figures. The
    # unjudged "rules" linking was retired on 2026-12-07 (decision 0027).
    linking: str = "guesses"
    # BIOKG_COMMAND_TIMEOUT_S (default 300; 0 = none): the embedded engine stops any command,
    # read or write, that runs longer. Server-wide because ArcadeDB ignores the per-query
    # timeout the driver sends (the agent's own 10 s per query holds on Neo4j only); lower it
    # for an engine that only serves the agent API. It is fixed when the engine starts.
    command_timeout_s: int = 300
    # BIOKG_SERVED_TIMEOUT_S (default 10; 0 = keep BIOKG_COMMAND_TIMEOUT_S): the command limit of
    # an embedded engine that `biokg serve` or `biokg mcp` starts itself, where clients send
    # Cypher of their own (MCP read_cypher, the LLM planner). It matches the agent's 10 s per
    # query. A shared engine (`biokg db start`) keeps the limit it started with: start it with
    # BIOKG_COMMAND_TIMEOUT_S=10 to serve. Danger: a very large graph may need longer for the
    # agent's start-up reads (its lexicon); raise it rather than set 0.
    served_timeout_s: int = 10
    # (no variable; default 30) how long the driver retries a graph transaction that failed on a
    # lost connection or a transient engine error: the driver's own 30 s for commands and builds.
    # `biokg serve` and `biokg mcp` retry for SERVED_RETRY_S (for_serving): a request to a dead
    # engine fails within about a second (API: 503 with Retry-After) instead of after 30 s, and
    # a connection the restarted engine dropped is still retried. Danger: on a Neo4j cluster a
    # leader switch then fails the requests in flight; clients retry them.
    retry_s: float = 30.0
    # BIOKG_<SOURCE>_DIR (e.g. BIOKG_OPENFDA_DIR, BIOKG_HPO_DIR; default unset): a folder with that
    # source's files under their standard names, used instead of its offline default or a
    # download. `biokg build --data-dir` overrides it for one run.
    source_dirs: tuple[tuple[str, Path], ...] = ()
    # BIOKG_SHARED_DATA (default ../shared/data from the working directory): the folder of real
    # sample files that sources without packaged offline data read offline (openFDA, PrimeKG,
    # MONDO's mappings: each source's SourceInfo.shared_data names its part). Set it when running
    # from anywhere but the project root. Danger: what it holds is loaded as those sources.
    shared_data: Path = field(default_factory=_default_shared_data)
    # BIOKG_<SOURCE>_URL (e.g. BIOKG_KEGG_URL, BIOKG_HPO_URL; default unset): the REST API base URL
    # of a source fetched from one (KEGG: https://rest.kegg.jp), for a mirror or a local test
    # server; for `biokg refresh`, a mirror serving the source's release marker and files under
    # their standard names (biokg.ingest.upstream). Danger: what it serves is loaded as the source.
    source_urls: tuple[tuple[str, str], ...] = ()
    # BIOKG_<SOURCE>_ACCEPT_LICENSE=1 (e.g. BIOKG_KEGG_ACCEPT_LICENSE; default unset): accept the
    # terms of an opt-in source, as `biokg build --accept-kegg-license` does for one run. Without
    # it nothing of that source is fetched or built. Danger: you then answer for using it within
    # its terms (KEGG: academic use only, no redistribution, no bulk download).
    accepted_licenses: tuple[str, ...] = ()
    # BIOKG_OPENFDA_API_KEY (default unset): openFDA API key; raises the 1,000 requests/day limit.
    openfda_api_key: str | None = None
    # BIOKG_API_KEY (default unset): the key clients of the agent API (`biokg serve`) send in the
    # X-API-Key header. Unset means no authentication, which `biokg serve` allows on a loopback
    # host only: it refuses to listen on any other address without a key. Danger: anyone who
    # has the key can run graph queries (bounded per request) and read the whole graph.
    api_key: str | None = field(default=None, repr=False)
    # BIOKG_API_URL (default unset): the base URL of a running agent API (`biokg serve`, e.g.
    # http://127.0.0.1:8000). Set, `biokg ask` and `biokg search` send their text there (with
    # BIOKG_API_KEY) instead of starting an agent in their own process: about a second less a
    # question, spent importing the driver and reading the lexicon (docs/decisions/0039). The
    # answer is the server's, so it follows the server's settings and the graph it serves.
    api_url: str | None = None
    # BIOKG_ALLOWED_HOSTS (default unset): comma-separated host names (or addresses) the agent API
    # answers for, besides loopback (localhost, 127.0.0.1, ::1), which it always answers; "*"
    # answers any Host. Any other Host header gets 400: a page elsewhere cannot reach a loopback
    # server through DNS rebinding. Set it to the names clients use when serving beyond loopback.
    allowed_hosts: tuple[str, ...] = ()
    # BIOKG_MAX_IN_FLIGHT (default 16): graph requests (ask, search, entities) the agent API
    # answers at once; more get 429 with Retry-After. Each holds a worker thread and a share of
    # the engine; raising it on a small machine only makes every request slower.
    max_in_flight: int = 16
    # OPENAI_BASE_URL / OPENAI_API_KEY / BIOKG_LLM_MODEL (default unset): an OpenAI-compatible
    # chat endpoint for the agent's LLM planner; only when all three are set does the agent
    # plan with it (otherwise the deterministic planner answers). Danger: the question, the
    # schema summary and compact query results (a few names and ids) go to that endpoint.
    openai_base_url: str | None = None
    openai_api_key: str | None = field(default=None, repr=False)
    llm_model: str | None = None

    def source_dir(self, source: str) -> Path | None:
        """The folder ``BIOKG_<SOURCE>_DIR`` names for a source, if any."""
        return dict(self.source_dirs).get(source)

    def source_url(self, source: str) -> str | None:
        """The REST base URL ``BIOKG_<SOURCE>_URL`` names for a source, if any."""
        return dict(self.source_urls).get(source)

    def for_serving(self) -> Settings:
        """These settings for `biokg serve` / `biokg mcp`: an embedded engine they start stops
        any command after ``served_timeout_s`` (clients send queries the project did not
        write; ArcadeDB ignores the per-query timeout the driver sends), and a failed
        transaction is retried for :data:`SERVED_RETRY_S` only (a client waits on it)."""
        limit = self.served_timeout_s
        keep = limit <= 0 or 0 < self.command_timeout_s <= limit
        command = self.command_timeout_s if keep else limit
        return replace(self, command_timeout_s=command, retry_s=min(self.retry_s, SERVED_RETRY_S))

    @property
    def embedded(self) -> bool:
        return self.neo4j_uri is None

    @property
    def database_name(self) -> str:
        return self.database or ("kg" if self.embedded else "neo4j")

    @property
    def db_dir(self) -> Path:
        return self.home / "arcadedb"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        """Build settings from BIOKG_* variables.

        Raises:
            ConfigError: a numeric setting is not a number, or a Neo4j URI has no password.
        """
        env = dict(os.environ if env is None else env)

        def number(name: str, default: int) -> int:
            raw = env.get(name)
            if raw is None or raw == "":
                return default
            try:
                return int(raw)
            except ValueError as err:
                raise ConfigError(f"{name}={raw!r} is not an integer") from err

        uri = env.get("BIOKG_NEO4J_URI") or None
        password = env.get("BIOKG_NEO4J_PASSWORD") or None
        if uri and not password:
            raise ConfigError(
                f"BIOKG_NEO4J_URI={uri} is set but BIOKG_NEO4J_PASSWORD is not; "
                "set the password of that Neo4j server (docker-compose reads NEO4J_PASSWORD)"
            )
        return cls(
            home=Path(env["BIOKG_HOME"]).expanduser() if env.get("BIOKG_HOME") else _default_home(),
            neo4j_uri=uri,
            neo4j_user=env.get("BIOKG_NEO4J_USER") or "neo4j",
            neo4j_password=password,
            database=env.get("BIOKG_NEO4J_DATABASE") or None,
            bolt_port=number("BIOKG_BOLT_PORT", 7688),
            http_port=number("BIOKG_HTTP_PORT", 2481),
            embedded_password=env.get("BIOKG_EMBEDDED_PASSWORD") or "biokg-local",
            jvm_heap=env.get("BIOKG_JVM_HEAP") or "2g",
            batch_size=number("BIOKG_BATCH_SIZE", 10_000),
            bulk_load=env.get("BIOKG_BULK_LOAD", "1").strip().lower() not in ("0", "false", "no"),
            command_timeout_s=number("BIOKG_COMMAND_TIMEOUT_S", 300),
            served_timeout_s=number("BIOKG_SERVED_TIMEOUT_S", 10),
            embedder=_choice(env, "BIOKG_EMBEDDER", ("static", "transformer")),
            linking=_choice(env, "BIOKG_LINKING", ("guesses", "scored")),
            source_dirs=tuple(
                (name, Path(value).expanduser()) for name, value in _per_source(env, "_DIR")
            ),
            shared_data=(
                Path(env["BIOKG_SHARED_DATA"]).expanduser()
                if env.get("BIOKG_SHARED_DATA")
                else _default_shared_data()
            ),
            source_urls=_per_source(env, "_URL"),
            accepted_licenses=tuple(
                name
                for name, value in _per_source(env, "_ACCEPT_LICENSE")
                if value.strip().lower() in ("1", "true", "yes")
            ),
            openfda_api_key=env.get("BIOKG_OPENFDA_API_KEY") or None,
            api_key=env.get("BIOKG_API_KEY") or None,
            api_url=_base_url(env, "BIOKG_API_URL"),
            allowed_hosts=tuple(
                h.strip() for h in env.get("BIOKG_ALLOWED_HOSTS", "").split(",") if h.strip()
            ),
            max_in_flight=number("BIOKG_MAX_IN_FLIGHT", 16),
            openai_base_url=env.get("OPENAI_BASE_URL") or None,
            openai_api_key=env.get("OPENAI_API_KEY") or None,
            llm_model=env.get("BIOKG_LLM_MODEL") or None,
        )


def _per_source(env: dict[str, str], suffix: str) -> tuple[tuple[str, str], ...]:
    """(source, value) of every set ``BIOKG_<SOURCE><suffix>`` variable (source lower-cased)."""
    return tuple(
        (key[len("BIOKG_") : -len(suffix)].lower(), value)
        for key, value in sorted(env.items())
        if key.startswith("BIOKG_")
        and key.endswith(suffix)
        and len(key) > 6 + len(suffix)
        and value
    )


def _base_url(env: dict[str, str], name: str) -> str | None:
    """An http(s) URL without its trailing slash, or None when unset."""
    value = env.get(name, "").strip()
    if not value:
        return None
    if not value.startswith(("http://", "https://")):
        raise ConfigError(f"{name}={value!r}: expected an http:// or https:// URL")
    return value.rstrip("/")


def _choice(env: dict[str, str], name: str, allowed: tuple[str, ...]) -> str:
    """A setting with a fixed set of values; unset means the first.

    Raises:
        ConfigError: the value is none of ``allowed``.
    """
    value = (env.get(name) or allowed[0]).strip().lower()
    if value not in allowed:
        raise ConfigError(f"{name}={value!r}: expected one of {', '.join(allowed)}")
    return value
