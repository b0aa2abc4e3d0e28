// Entity nodes per label and per set of sources that asserted them (the bridge's own mark left
// out; $bridge is null in a graph with no bridge loaded): how many nodes one source holds alone
// and how many several sources met on.
MATCH (n:Entity)
WITH [l IN labels(n) WHERE l <> 'Entity'][0] AS label,
     [s IN coalesce(n.sources, []) WHERE $bridge IS NULL OR s <> $bridge] AS sources
RETURN label, sources, count(*) AS nodes
