"""biokg: a biomedical knowledge graph with provenance on every node and edge."""

__version__ = "0.1.0"
