-- Evaluations and experiment cells carry macro-F1's 95 % claim-bootstrap interval as two more
-- metrics, macro_f1_low and macro_f1_high (tasks/stance/metrics.py): the corpora's small classes
-- make one pair worth a point of macro-F1, and a reader comparing two figures needs to see that.
-- Rows stored before this migration have no interval; the view shows NULL for them.

CREATE OR REPLACE VIEW v_experiment_cells AS
SELECT r.experiment, r.experiment_id, r.started_at, x.row_key, x.column_key, x.scheme,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1') AS macro_f1,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1_low') AS macro_f1_low,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1_high') AS macro_f1_high,
       max(x.value) FILTER (WHERE x.metric = 'accuracy') AS accuracy
FROM experiment_results x JOIN experiment_runs r USING (experiment_id)
GROUP BY ALL;

COMMENT ON VIEW v_experiment_cells IS 'The newest run of each model experiment as a matrix: one row per cell (row_key, column_key) with its macro-F1, the 95 % claim-bootstrap interval of it (macro_f1_low, macro_f1_high; NULL for runs stored before 2026-12-03) and accuracy.';
