-- The method's dataset table: one row per source and veracity, with a total row. The total
-- counts distinct claims and articles over all sources: an article paired with claims of two
-- sources is one article.
SELECT * FROM (
SELECT source_id AS source, veracity, claims, articles, agree, disagree, discuss, unrelated, pairs
FROM v_source_stats
UNION ALL
SELECT
    'total', '',
    count(DISTINCT claim_id), count(DISTINCT article_id),
    count(*) FILTER (WHERE label = 'agree'), count(*) FILTER (WHERE label = 'disagree'),
    count(*) FILTER (WHERE label = 'discuss'), count(*) FILTER (WHERE label = 'unrelated'),
    count(*)
FROM v_gold_pairs
)
ORDER BY source = 'total', source, veracity;
