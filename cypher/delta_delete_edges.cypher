// Delete a source's edges that are gone upstream, by id, walking from the subject (small degree)
// rather than scanning the type. {type} and {from} are schema/ names, validated before
// substitution.
UNWIND $rows AS row
MATCH (a:{from} {id: row.subject})-[e:{type} {id: row.id}]->()
WHERE e.source = $source
DELETE e
