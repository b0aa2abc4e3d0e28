// After a complete load: nodes holding facts of this source from another load (the source no
// longer asserts them), with their label. The load id is a 16-hex digest, unique to the load.
MATCH (n:Entity)
WHERE $source IN n.sources AND NOT n.source_facts CONTAINS $load_id
RETURN n.id AS id, [l IN labels(n) WHERE l <> 'Entity'][0] AS label
