-- Stored metrics (one row per metric and label) of one run, or of every run when the run id
-- parameter is NULL (it is passed twice), in run start order.
SELECT e.run_id, r.model_name, e.dataset, e.split, e.metric, e.label, e.value
FROM evaluations e JOIN model_runs r USING (run_id)
WHERE (? IS NULL OR e.run_id = ?)
ORDER BY r.started_at, e.dataset, e.split, e.metric, e.label;
