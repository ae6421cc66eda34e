-- The mark the retraining trigger counts new gold labels from: of the latest succeeded run trained on the
-- warehouse's own gold, the newest gold label it read (gold_stored_through in its config), or, for a run
-- recorded without that mark, its start. Failed runs and runs on public corpora do not count.
SELECT coalesce(TRY_CAST(json_extract_string(config, '$.gold_stored_through') AS TIMESTAMP), started_at)
FROM model_runs
WHERE status = 'succeeded' AND json_extract_string(config, '$.dataset') = 'warehouse'
ORDER BY started_at DESC NULLS LAST LIMIT 1;
