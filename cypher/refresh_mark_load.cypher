// Keep a refresh's facts on a load's record: the upstream marker it read, its report (JSON).
MATCH (v:SourceVersion {id: $id})
SET v += $props
