// Every phenotype term with its name, for the diagnosis ranker's term index.
MATCH (p:Phenotype)
RETURN p.id AS id, p.name AS name
