"""How a distributed run (pytest-xdist, ``scripts/test.sh``) shares the suite out to workers.

Each worker is a process of its own, so it has a session graph of its own (tests/conftest.py: an
embedded engine on free ports, a home in the worker's temp folder): the first worker to need it
builds it, the others copy it (tests/session_graph.py). A unit of work runs whole on one worker,
in collection order: a test file, or every test file using one of :data:`SHARED_SETUPS`, or the
tests on the cross-source graph. The units are queued, and handed out in queue order, in three
runs:

1. the units with a test on the session graph (the ``session_home`` fixture), in collection order,
   so each worker's graph meets the writes of earlier tests in the order a serial run does;
2. the tests on the cross-source graph, one unit: that graph is the session graph with GO,
   PrimeKG and KEGG added, and is handed out only after every unit of the first run, so it
   comes after them on the worker that takes it;
3. the units that never touch the session graph, which keep the other worker busy meanwhile
   (and at the start, while the first worker builds the session graph: :class:`UnitScheduling`).

A test of a shared unit is reported as ``path::name@unit`` (pytest 9.2's short summary prints a
parametrized one as ``name[params]@unit]``): drop ``@unit`` to run it again.

Why and what it gained: docs/decisions/0028-suite-on-two-cores.md and
0031-session-graph-built-once.md.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import session_graph
from _pytest.nodeid import NodeId
from xdist.remote import Producer
from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController

#: The unit of the tests on the cross-source graph (tests/conftest.py ``cross_source_graph``).
CROSS_SOURCE = "cross-source"

#: Fixtures narrower than the run that cost seconds to set up in each process that uses them:
#: the API's app and warm-up (tests/api), the Prefect test server (tests/flows), the offline
#: inputs parsed once (tests/ingest). The files using one are one unit, so one worker pays it.
SHARED_SETUPS = ("client", "prefect_api", "offline_read")


def group_and_order(items: list[pytest.Item]) -> None:
    """Name each test's unit in its id where it is not its file (see :func:`_join`), and order
    ``items`` in the three runs of the module docstring, each unit's tests together, in
    collection order."""
    shared: dict[Path, str] = {}
    for item in items:
        for name in SHARED_SETUPS:
            if name in item.fixturenames:
                shared.setdefault(item.path, name)
    units: list[str] = []
    for item in items:
        group = CROSS_SOURCE if "cross_source_graph" in item.fixturenames else shared.get(item.path)
        units.append(group or item.nodeid.split("::", 1)[0])
        if group is not None:
            _join(item, group)
    run: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, (item, unit) in enumerate(zip(items, units, strict=True)):
        here = 1 if unit == CROSS_SOURCE else 0 if "session_home" in item.fixturenames else 2
        run[unit] = min(run.get(unit, 2), here)
        first.setdefault(unit, index)
    order = sorted(range(len(items)), key=lambda i: (run[units[i]], first[units[i]], i))
    items[:] = [items[i] for i in order]


def _join(item: pytest.Item, group: str) -> None:
    """Append ``@group`` to ``item``'s id, where :class:`UnitScheduling` reads it on the
    controller (the workers send it nothing but ids). pytest-xdist's ``--dist loadgroup`` does
    this for ``xdist_group`` marks by setting ``_nodeid``, which pytest 9.2's structured ids no
    longer read, so its groups are silently ignored (pytest-dev/pytest-xdist#1386): set the
    structured id instead, and fail loudly should a later pytest ignore that too."""
    item._id = NodeId.parse(f"{item.nodeid}@{group}")
    if not item.nodeid.endswith(f"@{group}"):
        raise RuntimeError(f"pytest ignored the work unit {group!r} set on {item.nodeid}")


def snapshot_folder(config: pytest.Config) -> Path:
    """The folder of the session graph's snapshot (tests/session_graph.py) that the workers of
    this run share, made by the controlling process and removed when the run ends."""
    if _SNAPSHOT not in config.stash:
        folder = Path(tempfile.mkdtemp(prefix="biokg-session-graph-"))
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
        config.stash[_SNAPSHOT] = folder
    return config.stash[_SNAPSHOT]


_SNAPSHOT = pytest.StashKey[Path]()


class UnitScheduling(LoadGroupScheduling):
    """pytest-xdist's ``loadgroup`` on the units above: a test with no ``@unit`` in its id goes
    with its file (``loadgroup`` would send it on its own), and the queue keeps the order the
    workers collected (``--no-loadscope-reorder``; pytest-xdist sorts it by tests per unit).

    One exception to queue order: while the first worker builds the session graph, the others
    have no snapshot to copy yet (tests/session_graph.py), so they take the units that never
    touch it (the third run, queued after the cross-source unit) instead of waiting."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        config.option.loadscopereorder = False
        super().__init__(config, log)
        self._snapshot = snapshot_folder(config)

    def _assign_work_unit(self, node: WorkerController) -> None:
        if node is not self.nodes[0] and not session_graph.made(self._snapshot):
            units = list(self.workqueue)
            if CROSS_SOURCE in units and units[-1] != CROSS_SOURCE:
                self.workqueue.move_to_end(units[units.index(CROSS_SOURCE) + 1], last=False)
        super()._assign_work_unit(node)

    def _split_scope(self, nodeid: str) -> str:
        group = super()._split_scope(nodeid)
        return nodeid.split("::", 1)[0] if group == nodeid else group
