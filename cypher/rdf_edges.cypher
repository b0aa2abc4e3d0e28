// Every edge between entities with all its properties (streamed; the whole graph), optionally
// only those of the $sources (infores ids; null: all).
MATCH (a:Entity)-[r]->(b:Entity)
WHERE $sources IS NULL OR r.source IN $sources
RETURN a.id AS subject, type(r) AS type, b.id AS object, properties(r) AS props
