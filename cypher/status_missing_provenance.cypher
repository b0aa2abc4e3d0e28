// Edges lacking a provenance field; a healthy graph returns 0.
MATCH ()-[e]->()
WHERE e.source IS NULL OR e.source = '' OR e.source_version IS NULL OR e.source_version = ''
   OR e.source_record IS NULL OR e.source_record = ''
RETURN count(e) AS missing
