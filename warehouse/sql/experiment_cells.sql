-- The cells of one experiment run: macro-F1 and accuracy (per-class figures are in experiment_results).
SELECT row_key, column_key, scheme, macro_f1, accuracy
FROM v_experiment_cells
WHERE experiment_id = ?
ORDER BY row_key, column_key;
