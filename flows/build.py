"""Prefect 3 flow ``build``: the same per-source steps as ``biokg build``, as tasks.

Reads top to bottom like the CLI: connect, create constraints, fetch every source (retried on
transient errors only), parse and validate in build order each source whose inputs, code or
identity input changed (never retried: a format error is permanent), resolving drug identities
across sources (:func:`biokg.ingest.build.plan_loads`), write each, then embed the text of new
and changed nodes (retried on transient errors: it is idempotent). All logic lives in
:mod:`biokg.ingest.build` and :mod:`biokg.ingest.embedding.nodes`; tasks are thin.
Scheduled, change-driven refresh: flows/refresh.py (each load here keeps the snapshot a refresh
compares with).

Tasks hand Records (polars frames) to the write task in memory, so those tasks disable result
caching and persistence: hashing frames for cache keys is slow and unreliable
(PrefectHQ/prefect#17547); fetched inputs are keyed by checksum instead.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from biokg.core.embedding.static import node_embedder
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import RetryableError
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest.build import (
    DEFAULT_SOURCES,
    Planned,
    bridge,
    build_order,
    fetch_source,
    plan_loads,
    prepare_records,
    write_records,
)
from biokg.ingest.delta import save_snapshot
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.ingest.identity import MergeReport
from biokg.ingest.records import Records
from biokg.ingest.writer import GraphWriter
from biokg.schema import load_schema


def _only_transient(task, task_run, state) -> bool:
    """Retry a task only when it failed with a RetryableError (network, store unavailable)."""
    try:
        state.result()
    except RetryableError:
        return True
    except Exception:
        return False
    return False


@task(
    retries=3,
    retry_delay_seconds=[10, 60, 300],
    retry_condition_fn=_only_transient,
    cache_policy=NO_CACHE,
    task_run_name="fetch-{name}",
)
def fetch(name: str, settings: Settings, data_dir: Path | None, offline: bool) -> Planned:
    return fetch_source(name, settings, data_dir=data_dir, offline=offline)


@task(cache_policy=NO_CACHE, persist_result=False, task_run_name="prepare-{planned.name}")
def prepare(planned: Planned, sample: bool) -> Records:
    return prepare_records(planned, sample=sample)


@task(cache_policy=NO_CACHE, persist_result=False, task_run_name="write-{planned.name}")
def write(
    store: GraphStore,
    settings: Settings,
    planned: Planned,
    records: Records,
    identity: MergeReport,
    rewrite: bool = False,
) -> dict:
    result = write_records(
        store,
        planned,
        records,
        batch_size=settings.batch_size,
        bulk=settings.bulk_load,
        identity=identity,
        rewrite=rewrite,
    )
    save_snapshot(settings.cache_dir, planned.release, records)  # a refresh's next baseline
    return result.__dict__


@task(cache_policy=NO_CACHE, persist_result=False, task_run_name="bridge-diseases")
def bridge_task(store: GraphStore, writer: GraphWriter, settings: Settings, offline: bool) -> dict:
    return bridge(store, writer, settings, offline=offline).__dict__


@task(
    retries=2,
    retry_delay_seconds=[10, 60],
    retry_condition_fn=_only_transient,
    cache_policy=NO_CACHE,
    persist_result=False,
)
def embed_nodes(store: GraphStore, settings: Settings) -> dict:
    with VectorCache.default(settings) as cache:
        report = embed_graph(store, node_embedder(settings), cache=cache)
    return dataclasses.asdict(report)


@flow(name="build", flow_run_name="build-{sources}", log_prints=True)
def build_flow(
    sources: list[str] | None = None,
    data_dir: str | None = None,
    offline: bool = True,
    sample: bool = False,
    embed: bool = True,
    force: bool = False,
    settings: Settings | None = None,
) -> list[dict]:
    """Build the graph from ``sources`` (default: every default source); one report row per
    source. Sources read before by the same code are skipped unless ``force``.

    With ``embed`` (default), new and changed nodes are embedded last; that report is logged.
    """
    logger = get_run_logger()
    settings = settings or Settings.from_env()
    folder = Path(data_dir) if data_dir else None
    # questions asked meanwhile read the lexicon of the graph as it was (LexiconBuild)
    writing = f"build flow {', '.join(sources or DEFAULT_SOURCES)}"
    with (
        LexiconBuild(settings.cache_dir, writing=writing) as lexicon,
        GraphStore.connect(settings) as store,
    ):
        store.apply_schema(load_schema())
        names = build_order(sources or DEFAULT_SOURCES)
        planned = [fetch(name, settings, folder, offline) for name in names]
        writer = GraphWriter(
            store, load_schema(), batch_size=settings.batch_size, bulk=settings.bulk_load
        )
        skipped, pending = plan_loads(
            store,
            settings,
            writer,
            planned,
            force=force,
            sample=sample,
            offline=offline,
            prepare=prepare,  # each source's parse and validation is a task of its own
        )
        report = [result.__dict__ for result in skipped]
        report += [
            write(store, settings, plan, records, identity, force)
            for plan, records, identity in pending
        ]
        report.append(bridge_task(store, writer, settings, offline))
        if embed:
            logger.info("embeddings: %s", embed_nodes(store, settings))
        lexicon.lexicon(store)  # the agent's names of the new graph, built once here
    for row in report:
        logger.info("report: %s", row)
    return report
