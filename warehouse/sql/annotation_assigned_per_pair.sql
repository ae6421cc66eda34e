-- Per pair: how many annotators its pilot and production rounds assigned it to, i.e. how many labels
-- gold decisions wait for (adjudication rounds add an adjudicator, not an expected label).
SELECT s.pair_id, count(DISTINCT s.annotator_id) AS annotators
FROM annotation_assignments s
JOIN annotation_rounds r USING (round)
WHERE r.round_kind <> 'adjudication'
GROUP BY s.pair_id
ORDER BY s.pair_id;
