// The load id of the complete, current load of a source (none before its first build).
MATCH (v:SourceVersion {source: $source, current: true})
RETURN v.load_id AS load_id, v.version AS version
