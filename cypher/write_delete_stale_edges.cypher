// After a complete load, edges of this source written by another load are stale; deleted in
// bounded batches. One scan over every relationship type: on the embedded engine a scan per
// type costs ~0.13 s even for a type without edges (all 25: ~4 s a load on a 1 M-edge graph,
// against 0.8 s for this one scan).
MATCH ()-[e]->()
WHERE e.source = $source AND e.load_id <> $load_id
WITH e LIMIT $limit
DELETE e
RETURN count(*) AS deleted
