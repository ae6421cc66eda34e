-- Every round with its kind, in round order: by creation time, and rounds created in the same
-- second by name prefix, then by number (prod-2 before prod-10), not as text.
SELECT round, round_kind
FROM annotation_rounds
ORDER BY created_at, regexp_extract(round, '^(.*?)\d*$', 1),
         TRY_CAST(regexp_extract(round, '(\d+)$', 1) AS BIGINT) NULLS FIRST, round;
