// Every load of every source, newest first, with the report of the refresh that made it.
MATCH (v:SourceVersion)
RETURN v.source AS source, v.version AS version, v.current AS current, v.loaded_at AS loaded_at,
       v.load_id AS load_id, v.refresh AS refresh
ORDER BY v.loaded_at DESC, v.source
LIMIT $limit
