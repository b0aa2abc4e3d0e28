// Which of these ids already exist, with which labels (so a record cannot relabel a node) and
// every source's facts about them (biokg.ingest.node_facts).
UNWIND $ids AS id
MATCH (n:Entity {id: id})
RETURN n.id AS id, labels(n) AS labels, n.source_facts AS facts
