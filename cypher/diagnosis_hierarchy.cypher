// The phenotype hierarchy (IS_A between Phenotype terms) as the ontology's own source states it
// ($source: the first source of schema/'s precedence for Phenotype, HPO), from which the diagnosis
// ranker builds each term's ancestors. Other sources' IS_A edges between phenotypes are their
// copies or their own terms' placement, not the ontology's structure.
MATCH (c:Phenotype)-[r:IS_A]->(p:Phenotype)
WHERE r.source = $source
RETURN c.id AS child, p.id AS parent
