-- The cells of one experiment run: macro-F1 and accuracy (per-class figures are in experiment_results).
SELECT row_key, column_key, scheme, macro_f1, accuracy
FROM v_experiment_run_cells  -- any run, not only the newest of its experiment
WHERE experiment_id = ?
ORDER BY row_key, column_key;
