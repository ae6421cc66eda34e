-- An annotator's assignments not labelled yet (parameters: annotator, round: NULL for every round),
-- the ones `annotate release` gives up: a pair waits for every label its round assigned, so the
-- assignments of an annotator who will not label (away, left the project) hold their pairs for good.
SELECT s.round, s.pair_id
FROM annotation_assignments s
WHERE s.annotator_id = $annotator AND ($round IS NULL OR s.round = $round)
  AND NOT EXISTS (SELECT 1 FROM annotations a
                  WHERE a.round = s.round AND a.pair_id = s.pair_id AND a.annotator_id = s.annotator_id)
ORDER BY s.round, s.pair_id;
