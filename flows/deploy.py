"""Deployments of the ``refresh`` flow, one per source, on schedules that follow their releases.

openFDA exports weekly, HPO and GO release monthly, ChEMBL a few times a year, PrimeKG rarely:
each deployment asks only its source's release marker, so a run that finds nothing new costs one
request and no write. KEGG is opt-in (academic use only): its deployment has no schedule and
refuses to run until ``BIOKG_KEGG_ACCEPT_LICENSE=1`` is set where the flow runs. ``refresh-all``
refreshes every default source when started by hand.

Serve them from one long-running process (``python -m biokg.flows.deploy``), or send them to a
work pool with ``prefect deploy --all`` (prefect.yaml, the same names and schedules; the
docker-compose worker polls the ``biokg`` pool).
"""

from __future__ import annotations

from prefect import serve
from prefect.deployments.runner import RunnerDeployment

from biokg.flows.refresh import refresh_flow

#: deployment name → (sources, cron in UTC or None for by hand only)
SCHEDULES: dict[str, tuple[list[str], str | None]] = {
    "refresh-openfda": (["openfda"], "0 3 * * 1"),  # weekly, Monday 03:00
    "refresh-hpo": (["hpo"], "0 4 2 * *"),  # monthly, on the 2nd
    "refresh-go": (["go"], "0 4 3 * *"),  # monthly, on the 3rd
    "refresh-chembl": (["chembl"], "0 5 5 1,4,7,10 *"),  # quarterly
    "refresh-primekg": (["primekg"], "0 5 6 1,7 *"),  # twice a year
    "refresh-kegg": (["kegg"], None),  # opt-in: by hand, once its terms are accepted
    "refresh-all": ([], None),  # every default source, by hand
}


def deployments() -> list[RunnerDeployment]:
    """One deployment per entry of :data:`SCHEDULES`, its sources as its parameters."""
    return [
        refresh_flow.to_deployment(
            name=name,
            cron=cron,
            parameters={"sources": sources} if sources else {},
            tags=["biokg", "refresh"],
        )
        for name, (sources, cron) in SCHEDULES.items()
    ]


if __name__ == "__main__":
    serve(*deployments())
