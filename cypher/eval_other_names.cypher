// `biokg eval` name variants: a node's other names (brand names of drugs, synonyms), each must
// land on the node itself.
UNWIND $ids AS node_id
MATCH (n:Entity {id: node_id})
RETURN n.id AS id, n.brand_names AS brands, n.synonyms AS synonyms
