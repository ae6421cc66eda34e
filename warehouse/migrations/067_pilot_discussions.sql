-- Pilot disagreements are settled by discussion, as in the method: the annotators go through
-- every pilot pair they labelled differently, agree on a label and say why (the reasons are what
-- refines the guidelines). One decision per pair; it becomes the pair's gold label (method
-- 'adjudicated') and is never replaced by a majority of the pilot's labels.

CREATE TABLE pilot_discussions (
    pair_id        VARCHAR PRIMARY KEY,           -- claim_article_pairs.pair_id
    round          VARCHAR NOT NULL,              -- the pilot round the disagreement came from
    label          VARCHAR NOT NULL CHECK (label IN ('agree', 'disagree', 'discuss', 'unrelated')),
    reason         VARCHAR NOT NULL CHECK (length(trim(reason)) > 0),
    decided_by     VARCHAR,                       -- who took part, as the sheet names them
    decided_at     TIMESTAMP NOT NULL,
    source_file    VARCHAR NOT NULL
);
