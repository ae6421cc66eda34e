-- Statistics views, as in the method's dataset table: per source and veracity, the claims that
-- reached the dataset, their articles and the stance counts; and label counts per split.
-- Only claims not flagged as excluded and pairs with a gold label count.

CREATE OR REPLACE VIEW v_gold_pairs AS
SELECT p.pair_id, p.claim_id, p.article_id, c.source_id, c.veracity, g.label
FROM claim_article_pairs p
JOIN gold_labels g USING (pair_id)
JOIN claims c USING (claim_id)
WHERE c.status <> 'excluded';

CREATE OR REPLACE VIEW v_source_stats AS
SELECT
    source_id,
    veracity,
    count(DISTINCT claim_id)                      AS claims,
    count(DISTINCT article_id)                    AS articles,
    count(*) FILTER (WHERE label = 'agree')       AS agree,
    count(*) FILTER (WHERE label = 'disagree')    AS disagree,
    count(*) FILTER (WHERE label = 'discuss')     AS discuss,
    count(*) FILTER (WHERE label = 'unrelated')   AS unrelated,
    count(*)                                      AS pairs
FROM v_gold_pairs
GROUP BY source_id, veracity;

CREATE OR REPLACE VIEW v_split_label_counts AS
SELECT
    s.split,
    count(DISTINCT g.claim_id)                      AS claims,
    count(*) FILTER (WHERE g.label = 'agree')       AS agree,
    count(*) FILTER (WHERE g.label = 'disagree')    AS disagree,
    count(*) FILTER (WHERE g.label = 'discuss')     AS discuss,
    count(*) FILTER (WHERE g.label = 'unrelated')   AS unrelated,
    count(*)                                        AS pairs
FROM v_gold_pairs g
JOIN splits s USING (claim_id)
GROUP BY s.split;
