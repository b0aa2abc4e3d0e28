// Nodes matching a Lucene query (plain words, specials escaped by the caller) in one full-text
// index ($index: the dialect's name for it), best first.
CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
RETURN node.id AS id, node.name AS name, score
ORDER BY score DESC
LIMIT $k
