// Which of these ids already exist, and with which labels (so a record cannot relabel a node).
UNWIND $ids AS id
MATCH (n:Entity {id: id})
RETURN n.id AS id, labels(n) AS labels
