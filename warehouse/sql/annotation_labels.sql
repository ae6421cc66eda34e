-- Stored annotations in pair, annotator, round order, optionally narrowed: the round parameter (a round name,
-- or NULL for every round) and pair_ids (a VARCHAR list, or NULL for every pair). Imports use
-- it to find labels already stored; exports and agreement figures read whole rounds.
SELECT a.pair_id, a.annotator_id, a.label, a.round, a.round_kind, a.annotated_at, a.source_file
FROM annotations a
WHERE ($round::VARCHAR IS NULL OR a.round = $round::VARCHAR)
  AND ($pair_ids::VARCHAR[] IS NULL OR a.pair_id IN (SELECT unnest($pair_ids::VARCHAR[])))
ORDER BY a.pair_id, a.annotator_id, a.round;
