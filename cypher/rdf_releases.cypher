// The current load of every source: what names and describes each RDF named graph.
MATCH (v:SourceVersion)
WHERE v.current = true
RETURN v.source AS source, v.version AS version, v.retrieved_at AS retrieved_at,
       v.license AS license
ORDER BY source
