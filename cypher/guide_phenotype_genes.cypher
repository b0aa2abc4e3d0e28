// title: A phenotype's genes, source by source
// params: {"phenotype": "HP:0001166"}
// Arachnodactyly: the genes with this phenotype, grouped by the source and release that assert
// it (one edge per source, so sources that disagree stay visible). A gene can have several edges
// from one source (one per frequency or onset it states), so genes and edges are counted apart.
MATCH (g:Gene)-[r:HAS_PHENOTYPE]->(p:Phenotype {id: $phenotype})
RETURN r.source AS source, r.source_version AS version, count(DISTINCT g) AS genes,
       count(r) AS edges, collect(DISTINCT g.symbol)[..15] AS gene_examples
ORDER BY genes DESC
