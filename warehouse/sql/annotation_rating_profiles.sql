-- Rating profiles of every round: per round, how many pairs got each combination of label counts
-- (how many annotators said agree, disagree, discuss, unrelated), each combination in the order of its
-- first pair in pair order. Agreement figures need only these counts: a round of 840k annotations is a
-- few dozen rows here, where its labels took a gigabyte in Python.
WITH per_pair AS (
    SELECT round, pair_id,
           count(*) FILTER (WHERE label = 'agree') AS agree,
           count(*) FILTER (WHERE label = 'disagree') AS disagree,
           count(*) FILTER (WHERE label = 'discuss') AS discuss,
           count(*) FILTER (WHERE label = 'unrelated') AS unrelated
    FROM annotations
    GROUP BY round, pair_id
)
SELECT round, agree, disagree, discuss, unrelated, count(*) AS pairs
FROM per_pair
GROUP BY round, agree, disagree, discuss, unrelated
ORDER BY round, min(pair_id);
