-- Per round (in round order, as annotation_rounds.sql: creation time, then prod-2 before prod-10)
-- and annotator: pairs assigned and pairs labelled so far, so that a coordinator sees who is
-- behind before a round closes.
SELECT r.round, r.round_kind, s.annotator_id, count(*) AS assigned, count(a.label) AS done
FROM annotation_rounds r
JOIN annotation_assignments s USING (round)
LEFT JOIN annotations a ON a.round = s.round AND a.pair_id = s.pair_id AND a.annotator_id = s.annotator_id
GROUP BY r.created_at, r.round, r.round_kind, s.annotator_id
ORDER BY r.created_at, regexp_extract(r.round, '^(.*?)\d*$', 1),
         TRY_CAST(regexp_extract(r.round, '(\d+)$', 1) AS BIGINT) NULLS FIRST, r.round, s.annotator_id;
