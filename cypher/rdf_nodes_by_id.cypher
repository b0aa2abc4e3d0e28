// The entity nodes of $ids in the RDF export's projection (a seeded export).
UNWIND $ids AS wanted
MATCH (n:Entity {id: wanted})
RETURN n.id AS id, [l IN labels(n) WHERE l <> 'Entity'][0] AS label, n.name AS name,
       n.synonyms AS synonyms, n.description AS description, n.xrefs AS xrefs,
       n.sources AS sources
