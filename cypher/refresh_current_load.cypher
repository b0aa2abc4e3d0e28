// A source's current, complete load as a refresh compares with it: its key, version, the code
// that read it (JSON) and what its upstream marker said (JSON; none for a build).
MATCH (v:SourceVersion {source: $source, current: true})
RETURN v.id AS id, v.load_id AS load_id, v.version AS version, v.code AS code,
       v.upstream AS upstream
