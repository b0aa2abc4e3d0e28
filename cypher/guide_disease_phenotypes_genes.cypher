// title: A disease's phenotypes and genes
// params: {"disease": "OMIM:154700"}
// Marfan syndrome: how many phenotypes it has (HPO annotations; distinct terms, whatever the
// number of edges), some of them with their frequency where given, and the symbols of the genes
// associated with it.
MATCH (d:Disease {id: $disease})-[h:HAS_PHENOTYPE]->(p:Phenotype)
WITH d, count(DISTINCT p) AS phenotypes,
     collect(DISTINCT p.name + coalesce(' (' + h.frequency + ')', ''))[..20] AS phenotype_examples
OPTIONAL MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d)
RETURN d.name AS disease, phenotypes, phenotype_examples, collect(DISTINCT g.symbol) AS gene_symbols
