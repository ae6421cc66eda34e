-- Label counts per split (train, dev, test), with a total row.
SELECT * FROM (
SELECT split, claims, agree, disagree, discuss, unrelated, pairs
FROM v_split_label_counts
UNION ALL
SELECT 'total', sum(claims), sum(agree), sum(disagree), sum(discuss), sum(unrelated), sum(pairs)
FROM v_split_label_counts
)
ORDER BY CASE split WHEN 'train' THEN 0 WHEN 'dev' THEN 1 WHEN 'test' THEN 2 ELSE 3 END;
