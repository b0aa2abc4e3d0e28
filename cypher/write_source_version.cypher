// Record a complete load and make it the current one of its source.
MATCH (old:SourceVersion {source: $source})
SET old.current = false
WITH count(old) AS previous
MERGE (v:SourceVersion {id: $id})
SET v += $props, v.current = true
RETURN previous
