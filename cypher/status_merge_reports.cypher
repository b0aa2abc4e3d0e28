// The merge reports kept with each source's current load (drug identity, the disease bridge).
MATCH (v:SourceVersion)
WHERE v.current = true AND v.identity IS NOT NULL
RETURN v.source AS source, v.identity AS report
ORDER BY source
