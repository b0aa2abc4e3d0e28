// The shown values of nodes ($keys: their label's declared properties, in order), for facts
// stored as "the shown values" (a sole source's) and for nodes written before facts were kept.
UNWIND $ids AS id
MATCH (n:Entity {id: id})
RETURN n.id AS id, [key IN $keys | n[key]] AS values
