"""What a whole-graph export wrote and how long it took: the counts and rate the CLI prints and
the benchmarks compare, the same for every format that reports a rate."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class WriteReport:
    """Nodes and edges written, and the seconds of the whole export (nodes and metadata
    included)."""

    nodes: int = 0
    edges: int = 0
    seconds: float = 0.0

    @property
    def edges_per_s(self) -> float:
        """Edges written per second of the whole export."""
        return self.edges / self.seconds if self.seconds else 0.0
