// Every source's current load; each load that writes Drug nodes records a new one, so a cached
// Drug index keyed on these (and the Drug count) is stale after any build.
MATCH (v:SourceVersion)
WHERE v.current = true
RETURN v.id AS id, v.loaded_at AS loaded_at
