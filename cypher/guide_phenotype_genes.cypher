// title: A phenotype's genes, source by source
// params: {"phenotype": "HP:0001166"}
// Arachnodactyly: the genes with this phenotype, grouped by the source and release that assert
// it (one edge per source, so sources that disagree stay visible).
MATCH (g:Gene)-[r:HAS_PHENOTYPE]->(p:Phenotype {id: $phenotype})
RETURN r.source AS source, r.source_version AS version, count(g) AS genes,
       collect(g.symbol)[..15] AS examples
ORDER BY genes DESC
