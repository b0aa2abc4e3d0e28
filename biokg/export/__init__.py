"""The graph as files for other tools: RDF, KGX, ML tables and neo4j-admin CSV.

One writer per format (:mod:`~biokg.export.rdf`, :mod:`~biokg.export.kgx`,
:mod:`~biokg.export.ml`, :mod:`~biokg.export.neo4j_admin`), each over one streaming graph reader
(:mod:`~biokg.export.reader`): Cypher on either engine, one relationship type per query, and for
whole-graph exports on the embedded engine its SQL paged by record id (the faster road,
docs/decisions/0033-exports-package.md). Infores ids come from the graph's own release records
and schema/; a caller that names sources resolves them through the source registry first. Nothing
here imports the agent or the source modules (the import contract in ``.importlinter``).
"""
