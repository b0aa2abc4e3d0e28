// Every entity's id, label and the names it may be asked by (the linker's lexicon).
MATCH (n:Entity)
RETURN n.id AS id, [l IN labels(n) WHERE l <> 'Entity'][0] AS label, n.name AS name,
       n.synonyms AS synonyms, n.xrefs AS xrefs, n.symbol AS symbol,
       n.brand_names AS brand_names, n.generic_names AS generic_names
