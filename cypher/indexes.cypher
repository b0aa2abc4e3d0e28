// Generated from schema/ by `biokg schema cypher`; do not edit by hand.
CREATE FULLTEXT INDEX adverseevent_fulltext IF NOT EXISTS FOR (n:AdverseEvent) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX anatomy_fulltext IF NOT EXISTS FOR (n:Anatomy) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX disease_fulltext IF NOT EXISTS FOR (n:Disease) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX drug_fulltext IF NOT EXISTS FOR (n:Drug) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX exposure_fulltext IF NOT EXISTS FOR (n:Exposure) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX goterm_fulltext IF NOT EXISTS FOR (n:GOTerm) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX gene_fulltext IF NOT EXISTS FOR (n:Gene) ON EACH [n.name, n.symbol, n.synonyms];
CREATE FULLTEXT INDEX pathway_fulltext IF NOT EXISTS FOR (n:Pathway) ON EACH [n.name, n.synonyms];
CREATE FULLTEXT INDEX phenotype_fulltext IF NOT EXISTS FOR (n:Phenotype) ON EACH [n.name, n.synonyms];
CREATE VECTOR INDEX adverseevent_embedding IF NOT EXISTS FOR (n:AdverseEvent) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX anatomy_embedding IF NOT EXISTS FOR (n:Anatomy) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX disease_embedding IF NOT EXISTS FOR (n:Disease) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX drug_embedding IF NOT EXISTS FOR (n:Drug) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX exposure_embedding IF NOT EXISTS FOR (n:Exposure) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX goterm_embedding IF NOT EXISTS FOR (n:GOTerm) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX gene_embedding IF NOT EXISTS FOR (n:Gene) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX pathway_embedding IF NOT EXISTS FOR (n:Pathway) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX phenotype_embedding IF NOT EXISTS FOR (n:Phenotype) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
