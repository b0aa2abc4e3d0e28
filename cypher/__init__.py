"""Cypher files by name: constraints, indexes, writes and saved queries."""
