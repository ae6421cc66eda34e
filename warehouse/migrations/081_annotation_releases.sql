-- The assignments `annotate release` gave up, kept when it deletes them: a pair that a release left with
-- one label is short of the two the method asks and goes to another annotator, while a pair its round
-- gave to one annotator (annotation.annotators_per_pair 1 then) is gold from that label. Without this
-- record the two look alike (one assignment, one label), and raising annotators_per_pair for new
-- rounds withdrew the gold of the earlier one-annotator rounds.
CREATE TABLE annotation_releases (
    round          VARCHAR NOT NULL,              -- annotation_rounds.round
    pair_id        VARCHAR NOT NULL,              -- claim_article_pairs.pair_id
    annotator_id   VARCHAR NOT NULL,
    released_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (round, pair_id, annotator_id)
);
