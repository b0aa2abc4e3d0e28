// Every Disease node with its xrefs (a PrimeKG group lists its MONDO members there): what the
// disease bridge joins.
MATCH (d:Disease)
RETURN d.id AS id, d.xrefs AS xrefs
