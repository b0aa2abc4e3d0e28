// The current, complete load of a source (none before its first build): its load id, version
// and drug merge report (JSON, for sources with drugs).
MATCH (v:SourceVersion {source: $source, current: true})
RETURN v.load_id AS load_id, v.version AS version, v.identity AS identity
