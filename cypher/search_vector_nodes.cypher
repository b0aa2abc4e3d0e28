// search_vector with each node's properties, for rescoring the neighbours on their embedded
// text (only the linker's rescoring asks for them: the vectors make this row heavy).
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.id AS id, score, properties(node) AS node
ORDER BY score DESC
