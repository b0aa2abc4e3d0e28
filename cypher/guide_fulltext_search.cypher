// title: Full-text search over names and synonyms
// params: {"text": "viagra"}
// index: fulltext Drug
// Lucene search in the Drug full-text indexes: "viagra" is a synonym (a brand name) of
// sildenafil. $indexes names them: Neo4j has one per label, the embedded engine one per property
// (a node found by both keeps its best score).
UNWIND $indexes AS index_name
CALL db.index.fulltext.queryNodes(index_name, $text) YIELD node, score
WITH node, max(score) AS score
RETURN node.id AS id, node.name AS name, score
ORDER BY score DESC
LIMIT 10
