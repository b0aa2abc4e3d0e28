// title: Full-text search over names and synonyms
// params: {"text": "viagra"}
// index: fulltext Drug
// Lucene search in the Drug full-text index: "viagra" is a synonym (a brand name) of sildenafil.
CALL db.index.fulltext.queryNodes($index, $text) YIELD node, score
RETURN node.id AS id, node.name AS name, score
ORDER BY score DESC
LIMIT 10
