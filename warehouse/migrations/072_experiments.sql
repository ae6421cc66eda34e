-- Experiments (arastance experiment cross-dataset | imbalance): one row per run, and its table
-- in long form. A cell is (row_key, column_key): for cross-dataset the training and evaluation
-- corpora, for imbalance the strategy and the corpus. Metrics: accuracy, macro_f1, train_pairs,
-- train_seconds (label ''), and f1, precision, recall, support per label.

CREATE TABLE IF NOT EXISTS experiment_runs (
    experiment_id  VARCHAR PRIMARY KEY,
    experiment     VARCHAR NOT NULL CHECK (experiment IN ('cross-dataset', 'imbalance')),
    config         JSON,
    code_version   VARCHAR,
    started_at     TIMESTAMP NOT NULL,
    finished_at    TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS experiment_results (
    experiment_id  VARCHAR NOT NULL,              -- experiment_runs.experiment_id
    row_key        VARCHAR NOT NULL,
    column_key     VARCHAR NOT NULL,
    scheme         VARCHAR NOT NULL CHECK (scheme IN ('4way', '3way')),
    metric         VARCHAR NOT NULL,
    label          VARCHAR NOT NULL DEFAULT '',
    value          DOUBLE NOT NULL,
    PRIMARY KEY (experiment_id, row_key, column_key, metric, label)
);

-- The newest run of each experiment as a matrix: one row per cell, macro-F1 and accuracy.
CREATE OR REPLACE VIEW v_experiment_cells AS
SELECT r.experiment, r.experiment_id, r.started_at, x.row_key, x.column_key, x.scheme,
       max(x.value) FILTER (WHERE x.metric = 'macro_f1') AS macro_f1,
       max(x.value) FILTER (WHERE x.metric = 'accuracy') AS accuracy
FROM experiment_results x JOIN experiment_runs r USING (experiment_id)
GROUP BY ALL;

COMMENT ON VIEW v_experiment_cells IS 'The newest run of each model experiment as a matrix: one row per cell (row_key, column_key) with its macro-F1 and accuracy.';
