// Every Drug node with the names, xrefs and sources identity resolution matches and merges on
// (absent lists come back null; callers treat them as empty: coalesce here costs ~1/3 more).
MATCH (d:Drug)
RETURN d.id AS id, d.name AS name, d.synonyms AS synonyms, d.brand_names AS brand_names,
       d.generic_names AS generic_names, d.xrefs AS xrefs, d.sources AS sources
