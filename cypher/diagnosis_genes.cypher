// The genes associated with each disease (ASSOCIATED_WITH from Gene to Disease, every source),
// which a diagnosis ranking lists with each disease it ranks: a variant pipeline reads them.
MATCH (g:Gene)-[r:ASSOCIATED_WITH]->(d:Disease)
RETURN d.id AS disease, g.id AS gene, g.symbol AS symbol, r.id AS edge, r.source AS source,
       r.source_record AS source_record
