// Breadth-first survey: for each seed, how many neighbours per relationship type, direction and
// neighbour label (what a one-hop exploration could return, before fetching any rows).
UNWIND $ids AS seed_id
MATCH (s:Entity {id: seed_id})-[r]-(n:Entity)
RETURN s.id AS seed, type(r) AS type, startNode(r) = s AS outgoing,
       [l IN labels(n) WHERE l <> 'Entity'][0] AS label, count(*) AS edges
