// Edge counts per relationship type and source.
MATCH ()-[e]->()
RETURN type(e) AS type, e.source AS source, count(*) AS count
ORDER BY type, source
