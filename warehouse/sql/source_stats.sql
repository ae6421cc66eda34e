-- The method's dataset table: one row per source and veracity, with a total row. As in the
-- paper's Table 3, "articles" are claim–article pairs; distinct_articles counts each article
-- once, also in the total (an article paired with claims of two sources is one article).
-- (A subquery: DuckDB 1.5 refuses ORDER BY an expression right after UNION ALL.)
SELECT * FROM (
SELECT source_id AS source, veracity, claims, articles, distinct_articles, agree, disagree, discuss, unrelated, pairs
FROM v_source_stats
UNION ALL
SELECT
    'total', '',
    count(DISTINCT claim_id), count(*), count(DISTINCT article_id),
    count(*) FILTER (WHERE label = 'agree'), count(*) FILTER (WHERE label = 'disagree'),
    count(*) FILTER (WHERE label = 'discuss'), count(*) FILTER (WHERE label = 'unrelated'),
    count(*)
FROM v_gold_pairs
)
ORDER BY source = 'total', source, veracity;
