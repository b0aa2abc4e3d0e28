// The $k nodes nearest to $vector in one label's vector index ($index: the dialect's name for
// it). Score: cosine mapped to [0, 1], best first.
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC
