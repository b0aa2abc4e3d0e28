// The edges whose two ends are both in $ids (a seeded export), optionally only the $sources'.
UNWIND $ids AS wanted
MATCH (a:Entity {id: wanted})-[r]->(b:Entity)
WHERE b.id IN $ids AND ($sources IS NULL OR r.source IN $sources)
RETURN a.id AS subject, type(r) AS type, b.id AS object, properties(r) AS props
