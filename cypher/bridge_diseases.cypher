// Disease nodes the sources asserted (nodes only the bridge itself added are left out, so a
// re-run sees the same set), with their xrefs: what the disease bridge joins.
MATCH (d:Disease)
WHERE size([s IN coalesce(d.sources, []) WHERE s <> $bridge]) > 0
RETURN d.id AS id, d.xrefs AS xrefs
