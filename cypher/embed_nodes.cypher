// Id, embedded text fields (schema/ `embed:` order, passed as $fields) and the hash of the text
// the stored embedding was made from and the model that made it, of every node of one label. {label} is a schema/ label
// with `embed:` fields, validated before substitution.
MATCH (n:{label})
RETURN n.id AS id, [field IN $fields | n[field]] AS values, n.embedding_hash AS embedding_hash,
       n.embedding_model AS embedding_model
