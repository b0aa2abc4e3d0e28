// The nodes of one label for the ML export: id, name and the stored text embedding (null when
// `biokg embed` has not embedded the node). {label} is a schema/ label, validated before
// substitution; one label per command keeps each command short.
MATCH (n:{label})
RETURN n.id AS id, n.name AS name, n.embedding AS embedding
