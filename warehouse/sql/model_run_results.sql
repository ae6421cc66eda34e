-- One row per (dataset, split) of one run (parameter: the run id): per-class F1, accuracy and
-- macro-F1 side by side, the way the paper's result tables show them, then macro-F1's 95 % claim-bootstrap
-- interval (NULL for runs stored before 2026-12-03); splits in train, dev, test order.
SELECT r.model_name AS model, e.dataset, e.split,
       max(e.value) FILTER (WHERE e.metric = 'f1' AND e.label = 'agree')     AS agree_f1,
       max(e.value) FILTER (WHERE e.metric = 'f1' AND e.label = 'disagree')  AS disagree_f1,
       max(e.value) FILTER (WHERE e.metric = 'f1' AND e.label = 'discuss')   AS discuss_f1,
       max(e.value) FILTER (WHERE e.metric = 'f1' AND e.label = 'unrelated') AS unrelated_f1,
       max(e.value) FILTER (WHERE e.metric = 'f1' AND e.label = 'other')     AS other_f1,
       max(e.value) FILTER (WHERE e.metric = 'accuracy')                    AS accuracy,
       max(e.value) FILTER (WHERE e.metric = 'macro_f1')                    AS macro_f1,
       max(e.value) FILTER (WHERE e.metric = 'macro_f1_low')                AS macro_f1_low,
       max(e.value) FILTER (WHERE e.metric = 'macro_f1_high')               AS macro_f1_high
FROM evaluations e JOIN model_runs r USING (run_id)
WHERE e.run_id = ?
GROUP BY r.model_name, e.dataset, e.split
ORDER BY e.dataset, CASE e.split WHEN 'train' THEN 0 WHEN 'dev' THEN 1 WHEN 'test' THEN 2 ELSE 3 END;
