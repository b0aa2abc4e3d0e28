// Update nodes this source defines: its properties win, its name joins `sources` once.
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n += row
SET n.sources = CASE WHEN $source IN coalesce(n.sources, []) THEN n.sources
                ELSE coalesce(n.sources, []) + [$source] END
