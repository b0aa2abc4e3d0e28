// title: Vector search: label text like this one
// params: {"section": "DAILYMED:0b0be196-0c62-461c-94f4-9a35339b4501/contraindications"}
// index: vector LabelSection
// The label sections nearest by meaning to Viagra's contraindications, by the embedding each
// section carries (all-MiniLM-L6-v2, 384 dimensions, cosine).
MATCH (s:LabelSection {id: $section})
CALL db.index.vector.queryNodes($index, 6, s.embedding) YIELD node, score
RETURN node.id AS id, node.section AS section, score
ORDER BY score DESC
