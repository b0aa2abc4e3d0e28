// Every edge between entities as the ML export needs it: its ends, type, id, source and whether
// it is a PrimeKG group's `grouped` bridge (scalar columns only: a property map is slower to
// read; run one relationship type per command, as the RDF and KGX exports do).
MATCH (a:Entity)-[r]->(b:Entity)
WHERE $sources IS NULL OR r.source IN $sources
RETURN a.id AS subject, type(r) AS type, b.id AS object, r.id AS id, r.source AS source,
       coalesce(r.grouped, false) AS grouped
