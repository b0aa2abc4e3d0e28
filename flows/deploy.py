"""Deployments of the ``refresh`` flow, one per source, on schedules that follow their releases.

Each source declares its own schedule (``SOURCE.schedule``: openFDA exports weekly, HPO and GO
release monthly, ChEMBL a few times a year, PrimeKG rarely), so a new source gets its deployment
from its registry entry. Each deployment asks only its source's release marker, so a run that
finds nothing new costs one request and no write. KEGG is opt-in (academic use only): its
deployment has no schedule and refuses to run until ``BIOKG_KEGG_ACCEPT_LICENSE=1`` is set where
the flow runs. ``refresh-all`` refreshes every default source when started by hand.

Serve them from one long-running process (``python -m biokg.flows.deploy``), or send them to a
work pool with ``prefect deploy --all`` (prefect.yaml, the same names and schedules; the
docker-compose worker polls the ``biokg`` pool).
"""

from __future__ import annotations

from prefect import serve
from prefect.deployments.runner import RunnerDeployment

from biokg.flows.refresh import refresh_flow
from biokg.ingest.sources import SOURCES


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
        )
        for name, (sources, cron) in schedules().items()
    ]


if __name__ == "__main__":
    serve(*deployments())
