-- The method's dataset table: one row per source and veracity, with a total row.
SELECT source_id AS source, veracity, claims, articles, agree, disagree, discuss, unrelated, pairs
FROM v_source_stats
UNION ALL
SELECT 'total', '', sum(claims), sum(articles), sum(agree), sum(disagree), sum(discuss), sum(unrelated), sum(pairs)
FROM v_source_stats
ORDER BY source = 'total', source, veracity;
