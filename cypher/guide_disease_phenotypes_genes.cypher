// title: A disease's phenotypes and genes
// params: {"disease": "OMIM:154700"}
// Marfan syndrome: its phenotypes (HPO annotations, with frequency where given) and the genes
// associated with it.
MATCH (d:Disease {id: $disease})-[h:HAS_PHENOTYPE]->(p:Phenotype)
WITH d, count(p) AS phenotypes,
     collect(p.name + coalesce(' (' + h.frequency + ')', ''))[..20] AS examples
OPTIONAL MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d)
RETURN d.name AS disease, phenotypes, examples, collect(DISTINCT g.symbol) AS genes
