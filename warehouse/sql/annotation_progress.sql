-- Per round (in creation order) and annotator: pairs assigned and pairs labelled so far, so
-- that a coordinator sees who is behind before a round closes.
SELECT r.round, r.round_kind, s.annotator_id, count(*) AS assigned, count(a.label) AS done
FROM annotation_rounds r
JOIN annotation_assignments s USING (round)
LEFT JOIN annotations a ON a.round = s.round AND a.pair_id = s.pair_id AND a.annotator_id = s.annotator_id
GROUP BY r.created_at, r.round, r.round_kind, s.annotator_id
ORDER BY r.created_at, r.round, s.annotator_id;
