// Loaded source versions, newest first.
MATCH (v:SourceVersion)
RETURN v.source AS source, v.version AS version, v.current AS current, v.loaded_at AS loaded_at,
       v.load_id AS load_id, v.counts AS counts, v.checksums AS checksums
ORDER BY v.source, v.loaded_at DESC
