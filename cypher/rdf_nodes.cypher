// Every entity node in the RDF export's projection (streamed; the whole graph).
MATCH (n:Entity)
RETURN n.id AS id, [l IN labels(n) WHERE l <> 'Entity'][0] AS label, n.name AS name,
       n.synonyms AS synonyms, n.description AS description, n.xrefs AS xrefs,
       n.sources AS sources
