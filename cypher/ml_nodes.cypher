// The nodes of one label for the ML export: id, the engine's element id (the embedded engine's
// edges are read with their ends as these), name and the stored text embedding (null when
// `biokg embed` has not embedded the node). {label} is a schema/ label, validated before
// substitution; one label per command keeps each command short.
MATCH (n:{label})
RETURN n.id AS id, elementId(n) AS handle, n.name AS name, n.embedding AS embedding
