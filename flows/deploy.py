"""Deployments of the ``refresh`` flow, one per source, on schedules that follow their releases.

Each source declares its own schedule (``SOURCE.schedule``: openFDA exports weekly, HPO and GO
release monthly, ChEMBL a few times a year, PrimeKG rarely), so a new source gets its deployment
from its registry entry, and nothing else declares them (decision 0032: no ``prefect.yaml``).
Each deployment asks only its source's release marker, so a run that finds nothing new costs one
request and no write. KEGG is opt-in (academic use only): its deployment has no schedule and
refuses to run until ``BIOKG_KEGG_ACCEPT_LICENSE=1`` is set where the flow runs. ``refresh-all``
refreshes every default source when started by hand.

Two ways to run them, both Prefect's own:

- ``python -m biokg.flows.deploy`` serves them from this one long-running process
  (Prefect's ``serve``);
- ``python -m biokg.flows.deploy --pool biokg`` creates or updates them in the work pool
  ``biokg`` and exits (Prefect's ``deploy``); a worker polling the pool runs them (the
  docker-compose ``prefect-worker``: ``prefect worker start --pool biokg --type process``).

Their entrypoint is the module path ``biokg.flows.refresh.refresh_flow``, so the process that
runs a flow needs biokg installed (the Docker image, the virtualenv) and no checkout or
working directory; nothing is built or pushed.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from uuid import UUID

from prefect import deploy, serve
from prefect.deployments.runner import EntrypointType, RunnerDeployment

from biokg.errors import ConfigError
from biokg.flows.refresh import refresh_flow
from biokg.ingest.sources import SOURCES

#: the work pool of docker-compose's worker, the default of ``--pool``
POOL = "biokg"


def schedules() -> dict[str, tuple[list[str], str | None]]:
    """Deployment name → (sources, cron in UTC or None for by hand only): ``refresh-<name>`` of
    each registered source on its declared schedule, and ``refresh-all`` by hand."""
    per_source = {f"refresh-{name}": ([name], s.SOURCE.schedule) for name, s in SOURCES.items()}
    return {**per_source, "refresh-all": ([], None)}


def deployments() -> list[RunnerDeployment]:
    """One deployment per entry of :func:`schedules`, its sources as its parameters."""
    return [
        refresh_flow.to_deployment(
            name=name,
            cron=cron,
            parameters={"sources": sources} if sources else {},
            tags=["biokg", "refresh"],
            entrypoint_type=EntrypointType.MODULE_PATH,
        )
        for name, (sources, cron) in schedules().items()
    ]


def send(pool: str = POOL) -> list[UUID]:
    """Create or update every deployment in the work pool ``pool`` (it must exist: a worker
    started with ``--pool`` creates it); their ids. Prefect reports a deployment it could not
    create in its table and goes on; this raises then, so a partial send does not pass."""
    made = deployments()
    ids = deploy(
        *made,
        work_pool_name=pool,
        build=False,  # no image: the worker's own environment runs the module path
        push=False,
        print_next_steps_message=False,
        ignore_warnings=True,  # a process pool is meant: the worker runs beside the graph
    )
    if len(ids) != len(made):
        raise ConfigError(f"{len(made) - len(ids)} of {len(made)} deployments not sent to {pool}")
    return ids


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m biokg.flows.deploy",
        description="Serve the refresh deployments from this process, or send them to a pool.",
    )
    parser.add_argument(
        "--pool",
        nargs="?",
        const=POOL,
        metavar="NAME",
        help=f"create or update them in this work pool ({POOL} if no name is given) and exit",
    )
    pool = parser.parse_args(argv).pool
    if pool:
        send(pool)
    else:
        serve(*deployments())


if __name__ == "__main__":
    main()
