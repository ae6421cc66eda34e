-- The pairs of the decided gold labels (registered as decided_gold: pair_id, label, method,
-- decided_at) that a decision run must write: pairs without a gold label, and annotation decisions
-- whose label, method or decision time changed. An unchanged label is not written again (DuckDB
-- rewrites every row an upsert touches: 420k unchanged labels took a minute on every build), and a
-- dataset file's label (origin 'dataset_file') is never replaced by a decision.
SELECT d.pair_id
FROM decided_gold d LEFT JOIN gold_labels g USING (pair_id)
WHERE g.pair_id IS NULL
   OR (g.origin IS DISTINCT FROM 'dataset_file'
       AND (g.label, g.method, g.decided_at) IS DISTINCT FROM (d.label, d.method, d.decided_at));
