-- Per pilot round: pairs whose annotators disagreed, how many the discussion has decided (by
-- label) and how many still wait for it. A pair is disputed when its annotators' labels in the
-- round are not all the same, once every annotator the round assigned it to has labelled it
-- (two differing labels of three are no dispute yet: the pair is pending, as gold decisions say).
-- Pairs whose gold label a dataset file gave are left out: no discussion decides them.
WITH assigned AS (
    SELECT round, pair_id, count(DISTINCT annotator_id) AS annotators
    FROM annotation_assignments
    GROUP BY round, pair_id
),
per_pair AS (
    SELECT a.round, a.pair_id, count(DISTINCT a.label) AS labels
    FROM annotations a
    LEFT JOIN assigned s ON s.round = a.round AND s.pair_id = a.pair_id
    WHERE a.round_kind = 'pilot'
      -- a pair a dataset file labelled (handed out before rounds left gold pairs out) is decided by that label
      AND a.pair_id NOT IN (SELECT pair_id FROM gold_labels WHERE origin = 'dataset_file')
    GROUP BY a.round, a.pair_id, s.annotators
    HAVING count(DISTINCT a.annotator_id) >= greatest(2, coalesce(s.annotators, 2))
)
SELECT
    p.round,
    count(*)                                               AS pilot_pairs,
    count(*) FILTER (WHERE p.labels > 1)                   AS disputed,
    count(d.pair_id)                                       AS discussed,
    count(*) FILTER (WHERE p.labels > 1 AND d.pair_id IS NULL) AS waiting,
    count(*) FILTER (WHERE d.label = 'agree')              AS agree,
    count(*) FILTER (WHERE d.label = 'disagree')           AS disagree,
    count(*) FILTER (WHERE d.label = 'discuss')            AS discuss,
    count(*) FILTER (WHERE d.label = 'unrelated')          AS unrelated
FROM per_pair p
LEFT JOIN pilot_discussions d ON d.pair_id = p.pair_id AND d.round = p.round
GROUP BY p.round
ORDER BY p.round;
