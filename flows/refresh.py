"""Prefect 3 flows ``refresh`` (over sources) and ``refresh-source`` (one source, a subflow).

``refresh`` reads like its README description: for each source in build order (then each drug
source whose earlier drug sources' identity rows the run changed), a
``refresh-source`` subflow asks the upstream marker (a network task, retried on transient
errors only, with the back-off list the run names), fetches the files when the release changed
(network, retried likewise) and loads only what changed (never retried: a format error is
permanent). Transient means :class:`RetryableError` (timeouts, dropped connections, HTTP 5xx,
408, 429); a host name that does not resolve, another 4xx or a checksum mismatch
(:class:`FetchRefusedError`) fails the source at once instead of after minutes of back-off. A
failed source does not stop the others. When any source changed, the disease bridge and the
embeddings follow. The run ends with a Markdown artifact (key ``refresh-report``) holding the
report, logs it one line per source, and fails if any source failed.

All logic is in :mod:`biokg.ingest.refresh`; these tasks are thin. Deployments with schedules,
served or sent to a work pool: flows/deploy.py.
"""

from __future__ import annotations

import time

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.states import Completed, Failed, State

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.flows.build import _only_transient
from biokg.graph_agent.lexicon import LexiconBuild
from biokg.ingest import refresh as steps
from biokg.ingest.build import Planned, build_order, check_licenses
from biokg.ingest.sources import DEFAULT_SOURCES
from biokg.ingest.upstream import UpstreamState

#: Seconds between attempts of a network task (three retries), unless a run names others.
NETWORK_RETRY_DELAYS = (10, 60, 300)
REPORT_KEY = "refresh-report"


@task(retry_condition_fn=_only_transient, cache_policy=NO_CACHE, task_run_name="check-{name}")
def check_upstream(
    name: str, settings: Settings, current: steps.CurrentLoad | None, offline: bool
) -> tuple[UpstreamState | None, bool]:
    return steps.check(name, settings, current, offline=offline)


@task(retry_condition_fn=_only_transient, cache_policy=NO_CACHE, task_run_name="fetch-{name}")
def fetch_inputs(name: str, settings: Settings, offline: bool) -> Planned:
    return steps.fetch_inputs(name, settings, offline=offline)


@task(cache_policy=NO_CACHE, persist_result=False, task_run_name="load-{planned.name}")
def load_changes(
    store: GraphStore,
    settings: Settings,
    planned: Planned,
    upstream: UpstreamState | None,
    sample: bool,
) -> dict:
    return steps.load_changes(store, settings, planned, upstream, sample=sample).as_dict()


@task(cache_policy=NO_CACHE, persist_result=False, task_run_name="bridge-diseases")
def refresh_bridge(store: GraphStore, settings: Settings, offline: bool) -> dict:
    return steps.refresh_bridge(store, settings, offline=offline).as_dict()


@task(retry_condition_fn=_only_transient, cache_policy=NO_CACHE, persist_result=False)
def embed_changes(store: GraphStore, settings: Settings) -> dict:
    return steps.embed_changes(store, settings)


class Target:
    """The graph a refresh writes and the settings it runs with, as one subflow parameter:
    Prefect records a flow run's parameters, settings may hold credentials, and an object of
    this plain class is recorded by its class name only."""

    def __init__(self, store: GraphStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings


@flow(name="refresh-source", flow_run_name="refresh-{name}", persist_result=False)
def refresh_source_flow(
    name: str,
    target: Target,
    offline: bool = False,
    sample: bool = False,
    network_retry_delays: tuple[float, ...] = NETWORK_RETRY_DELAYS,
) -> dict:
    """Check, fetch and load one source; its report row (status ``unchanged`` when the
    upstream marker names the release already loaded)."""
    started = time.monotonic()
    store, settings = target.store, target.settings
    delays = list(network_retry_delays)
    retries = {"retries": len(delays), "retry_delay_seconds": delays}
    current = steps.current_load(store, name)
    state, unchanged = check_upstream.with_options(**retries)(name, settings, current, offline)
    if unchanged and name in steps.identity_stale(store):
        unchanged = False  # an earlier source's Drug identity rows changed: merge again
    if unchanged:
        report = steps.SourceReport(
            name, steps.UNCHANGED, current.version, current.version, upstream=state.version
        ).as_dict()
    else:
        planned = fetch_inputs.with_options(**retries)(name, settings, offline)
        report = load_changes(store, settings, planned, state, sample)
    report["duration_s"] = round(time.monotonic() - started, 3)
    return report


def _refresh_one(
    name: str,
    store: GraphStore,
    settings: Settings,
    offline: bool,
    sample: bool,
    delays: tuple[float, ...],
) -> dict:
    """One source's ``refresh-source`` subflow; its report row (failed: with the error)."""
    state = refresh_source_flow(
        name, Target(store, settings), offline, sample, delays, return_state=True
    )
    if state.is_completed():
        return state.result()
    error = state.result(raise_on_failure=False)
    return steps.SourceReport(name, steps.FAILED, message=str(error)).as_dict()


@flow(name="refresh", flow_run_name="refresh-{sources}", log_prints=True)
def refresh_flow(
    sources: list[str] | None = None,
    offline: bool = False,
    sample: bool = False,
    embed: bool = True,
    network_retry_delays: list[float] | None = None,
    settings: Settings | None = None,
) -> State:
    """Refresh ``sources`` (default: every default source); the final state is Failed when
    any source failed, and the ``refresh-report`` artifact holds every source's row.

    Args:
        offline: read the offline data instead of asking upstream (unless a mirror is set).
        sample: the inputs are deliberate samples (only upper count bounds apply).
        embed: embed new and changed nodes when anything changed.
        network_retry_delays: seconds between attempts of the network tasks.
    """
    logger = get_run_logger()
    settings = settings or Settings.from_env()
    names = build_order(sources or DEFAULT_SOURCES)
    check_licenses(names, settings)
    delays = tuple(network_retry_delays or NETWORK_RETRY_DELAYS)
    reports = []
    # questions asked meanwhile read the lexicon of the graph as it was (LexiconBuild)
    with (
        LexiconBuild(settings.cache_dir, writing=f"refresh flow {', '.join(names)}") as lexicon,
        GraphStore.connect(settings) as store,
    ):
        for name in names:
            reports.append(_refresh_one(name, store, settings, offline, sample, delays))
        for name in steps.identity_stale(store):  # merged onto identity rows this run changed
            if name not in names:
                reports.append(_refresh_one(name, store, settings, offline, sample, delays))
        if any(r["status"] in (steps.UPDATED, steps.RELOADED) for r in reports):
            reports.append(refresh_bridge(store, settings, offline))
            if embed:
                logger.info("embeddings: %s", embed_changes(store, settings))
        lexicon.lexicon(store)  # the agent's names of the refreshed graph, built once here
    rows = [steps.SourceReport(**r) for r in reports]
    markdown = steps.markdown_report(rows)
    create_markdown_artifact(markdown, key=REPORT_KEY, description="biokg refresh report")
    logger.info("\n%s", steps.text_report(rows))
    failed = [r.source for r in rows if r.status == steps.FAILED]
    if failed:
        return Failed(message=f"refresh failed for {', '.join(failed)}", data=reports)
    return Completed(message="refreshed", data=reports)
