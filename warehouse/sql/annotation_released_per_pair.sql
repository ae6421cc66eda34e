-- Per pair: how many of its pilot and production assignments `annotate release` gave up in rounds that
-- still hold the pair; with those still held, how many labels those rounds asked for (adjudication
-- rounds ask for none). A round whose every assignment of the pair was released holds it no more: the
-- pair went back to the pool, and the round that hands it out again asks for its own labels.
SELECT x.pair_id, count(DISTINCT x.annotator_id) AS released
FROM annotation_releases x
JOIN annotation_rounds r USING (round)
WHERE r.round_kind <> 'adjudication'
  AND EXISTS (SELECT 1 FROM annotation_assignments s WHERE s.round = x.round AND s.pair_id = x.pair_id)
GROUP BY x.pair_id
ORDER BY x.pair_id;
