// title: A path from a drug to a disease
// params: {"drug": "CHEMBL.COMPOUND:CHEMBL1069", "disease": "OMIM:145500"}
// Valsartan to essential hypertension: the shortest path of at most four hops, and the record
// behind each edge. The two ends must differ (Neo4j refuses a shortest path from a node to itself).
MATCH (a:Drug {id: $drug})
MATCH (b:Disease {id: $disease})
WHERE a <> b
MATCH p = shortestPath((a)-[*..4]-(b))
RETURN p, [r IN relationships(p) | type(r) + ' ' + r.source + ' ' + r.source_record] AS provenance
