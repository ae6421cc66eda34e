-- v_experiment_cells showed the cells of every stored run, although it, its comment and the README
-- say the newest run of each experiment: a second `arastance experiment cross-dataset` doubled the
-- matrix. The cells of every run move to v_experiment_run_cells (to compare runs: one encoder per
-- run), and v_experiment_cells keeps those of each experiment's newest run (by started_at; the later
-- experiment_id of two started at the same instant).

CREATE OR REPLACE VIEW v_experiment_run_cells AS
SELECT r.experiment, r.experiment_id, r.started_at, x.row_key, x.column_key, x.scheme,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1') AS macro_f1,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1_low') AS macro_f1_low,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1_high') AS macro_f1_high,
       max(x.value) FILTER (WHERE x.metric = 'accuracy') AS accuracy
FROM experiment_results x JOIN experiment_runs r USING (experiment_id)
GROUP BY ALL;

COMMENT ON VIEW v_experiment_run_cells IS 'Every stored run of each model experiment as a matrix: one row per run and cell (row_key, column_key) with its macro-F1, the 95 % claim-bootstrap interval of it (macro_f1_low, macro_f1_high; NULL for runs stored before 2026-12-03) and accuracy.';

CREATE OR REPLACE VIEW v_experiment_cells AS
SELECT * FROM v_experiment_run_cells
QUALIFY dense_rank() OVER (PARTITION BY experiment ORDER BY started_at DESC, experiment_id DESC) = 1;

COMMENT ON VIEW v_experiment_cells IS 'The newest run of each model experiment as a matrix: one row per cell (row_key, column_key) with its macro-F1, the 95 % claim-bootstrap interval of it (macro_f1_low, macro_f1_high; NULL for runs stored before 2026-12-03) and accuracy.';
