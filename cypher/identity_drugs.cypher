// Every Drug node with the names and xrefs identity resolution matches on.
MATCH (d:Drug)
RETURN d.id AS id,
       [d.name] + coalesce(d.synonyms, []) + coalesce(d.brand_names, [])
         + coalesce(d.generic_names, []) AS names,
       coalesce(d.xrefs, []) AS xrefs
