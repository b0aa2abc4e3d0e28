// The current load of every source: what an answer's data came from.
MATCH (v:SourceVersion)
WHERE v.current = true
RETURN v.source AS source, v.version AS version, v.load_id AS load_id, v.loaded_at AS loaded_at
ORDER BY source
