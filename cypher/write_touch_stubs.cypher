// Nodes a source only references keep their properties; the source is recorded once.
UNWIND $ids AS id
MATCH (n:Entity {id: id})
WHERE NOT $source IN coalesce(n.sources, [])
SET n.sources = coalesce(n.sources, []) + [$source]
