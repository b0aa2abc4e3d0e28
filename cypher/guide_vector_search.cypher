// title: Vector search: phenotypes like this one
// params: {"phenotype": "HP:0001250"}
// index: vector Phenotype
// The phenotypes nearest by meaning to Seizure, by the embedding each term carries (its name,
// synonyms and the first sentence of its definition; 384 dimensions, cosine, from the build's
// model: all-MiniLM-L6-v2 or, by default, the static model distilled from it). $index names the
// Phenotype vector index, which each engine names its own way.
MATCH (p:Phenotype {id: $phenotype})
CALL db.index.vector.queryNodes($index, 6, p.embedding) YIELD node, score
RETURN node.id AS id, node.name AS name, score
ORDER BY score DESC
