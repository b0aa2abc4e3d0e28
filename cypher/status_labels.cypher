// Node counts per label (every entity node has :Entity plus one type label).
MATCH (n:Entity)
UNWIND labels(n) AS label
WITH label WHERE label <> 'Entity'
RETURN label, count(*) AS count
ORDER BY label
