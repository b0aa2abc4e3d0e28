// Nodes a source no longer asserts lose its name from `sources`; a node no source asserts any
// more and no edge touches is deleted. {label} is a schema/ label, validated before substitution.
UNWIND $ids AS id
MATCH (n:{label} {id: id})
SET n.sources = [s IN coalesce(n.sources, []) WHERE s <> $source]
WITH n
WHERE size(n.sources) = 0 AND NOT EXISTS { (n)--() }
DELETE n
