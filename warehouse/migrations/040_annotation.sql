-- Annotation workflow and dataset assembly.
-- Rounds and their assignments make every exported task file reproducible; import records make
-- re-importing a file a no-op that says so; claim flags leave claims out of the dataset without
-- deleting anything. v_gold_pairs is replaced so that flagged claims drop out of every statistic.

CREATE TABLE annotation_rounds (
    round          VARCHAR PRIMARY KEY,           -- 'pilot-1', 'prod-1', 'adjudication-1', ...
    round_kind     VARCHAR NOT NULL CHECK (round_kind IN ('pilot', 'production', 'adjudication')),
    seed           INTEGER NOT NULL,
    annotators     JSON NOT NULL,                 -- the pool the round drew from
    created_at     TIMESTAMP NOT NULL
);

CREATE TABLE annotation_assignments (
    round          VARCHAR NOT NULL,              -- annotation_rounds.round
    pair_id        VARCHAR NOT NULL,              -- claim_article_pairs.pair_id
    annotator_id   VARCHAR NOT NULL,
    assigned_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (round, pair_id, annotator_id)
);

CREATE TABLE annotation_imports (
    file_hash      VARCHAR PRIMARY KEY,           -- sha256 of the imported file's bytes
    file_name      VARCHAR NOT NULL,
    file_format    VARCHAR NOT NULL CHECK (file_format IN ('label_studio', 'csv')),
    annotations    INTEGER NOT NULL,              -- annotations the file holds
    new_annotations INTEGER NOT NULL,             -- of which were new when it was imported
    imported_at    TIMESTAMP NOT NULL
);

CREATE TABLE dataset_claim_flags (
    claim_id       VARCHAR PRIMARY KEY,           -- claims.claim_id
    flag           VARCHAR NOT NULL CHECK (flag IN ('all_unrelated')),
    pairs          INTEGER NOT NULL,              -- gold-labelled pairs when flagged
    flagged_at     TIMESTAMP NOT NULL
);

CREATE OR REPLACE VIEW v_gold_pairs AS
SELECT p.pair_id, p.claim_id, p.article_id, c.source_id, c.veracity, g.label
FROM claim_article_pairs p
JOIN gold_labels g USING (pair_id)
JOIN claims c USING (claim_id)
WHERE c.status <> 'excluded'
  AND p.claim_id NOT IN (SELECT claim_id FROM dataset_claim_flags);

-- Everything the dataset export and the stance models need, one row per gold pair in a split.
CREATE OR REPLACE VIEW v_dataset_pairs AS
SELECT
    s.split,
    g.claim_id,
    g.source_id,
    g.veracity,
    COALESCE(o.cleaned_text, c.cleaned_text, c.title) AS claim,
    g.pair_id,
    g.article_id,
    a.url                                              AS article_url,
    a.title                                            AS article_title,
    a.text                                             AS article,
    p.rank,
    g.label                                            AS stance
FROM v_gold_pairs g
JOIN splits s USING (claim_id)
JOIN claims c USING (claim_id)
JOIN articles a USING (article_id)
JOIN claim_article_pairs p USING (pair_id)
LEFT JOIN claim_overrides o USING (claim_id);
