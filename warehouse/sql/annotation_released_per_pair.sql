-- Per pair: how many of its pilot and production assignments `annotate release` gave up; with those
-- still held, how many labels its rounds once asked for (adjudication rounds ask for none).
SELECT x.pair_id, count(DISTINCT x.annotator_id) AS released
FROM annotation_releases x
JOIN annotation_rounds r USING (round)
WHERE r.round_kind <> 'adjudication'
GROUP BY x.pair_id
ORDER BY x.pair_id;
