// Every Drug node with the names, xrefs and sources identity resolution matches and merges on.
MATCH (d:Drug)
RETURN d.id AS id, d.name AS name, coalesce(d.synonyms, []) AS synonyms,
       coalesce(d.brand_names, []) AS brand_names, coalesce(d.generic_names, []) AS generic_names,
       coalesce(d.xrefs, []) AS xrefs, coalesce(d.sources, []) AS sources
