// The $k nodes nearest to $vector in one label's vector index ($index: the dialect's name for
// it). Score: cosine mapped to [0, 1], best first; the node's properties for its embedded text.
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.id AS id, score, properties(node) AS node
ORDER BY score DESC
