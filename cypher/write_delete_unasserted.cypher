// A node no source asserts any more and no edge touches is deleted (one that still has an edge
// stays, with no sources, until that edge goes).
UNWIND $ids AS id
MATCH (n:Entity {id: id})
WHERE size(coalesce(n.sources, [])) = 0 AND NOT EXISTS { (n)--() }
DELETE n
