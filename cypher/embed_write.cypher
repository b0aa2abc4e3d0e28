// Store node embeddings (384 floats, filled into the label's vector index) and the hash of the
// text they were made from, so an unchanged text is never embedded or written again, and the
// model (a change of model is reported as the reason a node is embedded again).
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n.embedding = row.embedding, n.embedding_hash = row.embedding_hash,
    n.embedding_model = $model
