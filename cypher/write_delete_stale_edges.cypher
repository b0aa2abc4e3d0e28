// After a complete load, edges of this source written by another load are stale; deleted in
// bounded batches. {type} is a schema/ relationship type.
MATCH ()-[e:{type}]->()
WHERE e.source = $source AND e.load_id <> $load_id
WITH e LIMIT $limit
DELETE e
RETURN count(*) AS deleted
