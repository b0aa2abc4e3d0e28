// The phenotype hierarchy (IS_A between Phenotype terms), from which the diagnosis ranker builds
// each term's ancestors.
MATCH (c:Phenotype)-[:IS_A]->(p:Phenotype)
RETURN c.id AS child, p.id AS parent
