-- The per-source table counts "articles" as the method's dataset table (Table 3 of AraStance)
-- does: claim–article pairs, so that Articles = Agree + Disagree + Discuss + Unrelated on every
-- row. The number of distinct articles, which an article shared by two claims counts once, keeps
-- its own column, distinct_articles.

CREATE OR REPLACE VIEW v_source_stats AS
SELECT
    source_id,
    veracity,
    count(DISTINCT claim_id)                      AS claims,
    count(*)                                      AS articles,
    count(DISTINCT article_id)                    AS distinct_articles,
    count(*) FILTER (WHERE label = 'agree')       AS agree,
    count(*) FILTER (WHERE label = 'disagree')    AS disagree,
    count(*) FILTER (WHERE label = 'discuss')     AS discuss,
    count(*) FILTER (WHERE label = 'unrelated')   AS unrelated,
    count(*)                                      AS pairs
FROM v_gold_pairs
GROUP BY source_id, veracity;

-- Table 3 of the paper, in its layout: one row per source (site name as the paper writes it),
-- claims, articles (claim–article pairs) and the four stance counts, then the total.
CREATE OR REPLACE VIEW v_paper_table3 AS
WITH per_source AS (
    SELECT
        CASE WHEN source_id = 'total' THEN 'Total' ELSE upper(source_id[1]) || source_id[2:] END AS "Source",
        claims AS "Claims", articles AS "Articles", agree AS "Agree", disagree AS "Disagree",
        discuss AS "Discuss", unrelated AS "Unrelated",
        source_id = 'total' AS is_total, veracity
    FROM (
        SELECT source_id, min(veracity) AS veracity, count(DISTINCT claim_id) AS claims, count(*) AS articles,
               count(*) FILTER (WHERE label = 'agree') AS agree, count(*) FILTER (WHERE label = 'disagree') AS disagree,
               count(*) FILTER (WHERE label = 'discuss') AS discuss, count(*) FILTER (WHERE label = 'unrelated') AS unrelated
        FROM v_gold_pairs GROUP BY source_id
        UNION ALL
        SELECT 'total', '', count(DISTINCT claim_id), count(*),
               count(*) FILTER (WHERE label = 'agree'), count(*) FILTER (WHERE label = 'disagree'),
               count(*) FILTER (WHERE label = 'discuss'), count(*) FILTER (WHERE label = 'unrelated')
        FROM v_gold_pairs HAVING count(*) > 0
    )
)
SELECT "Source", "Claims", "Articles", "Agree", "Disagree", "Discuss", "Unrelated"
FROM per_source
ORDER BY is_total, veracity, "Source";

-- Table 4 of the paper, in its layout: Train, Dev, Test and Total rows with claims, articles
-- (claim–article pairs) and the four stance counts.
CREATE OR REPLACE VIEW v_paper_table4 AS
WITH per_split AS (
    SELECT s.split, count(DISTINCT g.claim_id) AS claims, count(*) AS articles,
           count(*) FILTER (WHERE g.label = 'agree') AS agree, count(*) FILTER (WHERE g.label = 'disagree') AS disagree,
           count(*) FILTER (WHERE g.label = 'discuss') AS discuss, count(*) FILTER (WHERE g.label = 'unrelated') AS unrelated
    FROM v_gold_pairs g JOIN splits s USING (claim_id)
    GROUP BY s.split
), with_total AS (
    SELECT * FROM per_split
    UNION ALL
    SELECT 'total', sum(claims), sum(articles), sum(agree), sum(disagree), sum(discuss), sum(unrelated)
    FROM per_split HAVING count(*) > 0
)
SELECT
    CASE split WHEN 'train' THEN 'Train' WHEN 'dev' THEN 'Dev' WHEN 'test' THEN 'Test' ELSE 'Total' END AS "Split",
    claims::BIGINT AS "Claims", articles::BIGINT AS "Articles", agree::BIGINT AS "Agree",
    disagree::BIGINT AS "Disagree", discuss::BIGINT AS "Discuss", unrelated::BIGINT AS "Unrelated"
FROM with_total
ORDER BY CASE split WHEN 'train' THEN 0 WHEN 'dev' THEN 1 WHEN 'test' THEN 2 ELSE 3 END;

-- CREATE OR REPLACE drops a view's comment: state them again.
COMMENT ON VIEW v_source_stats IS 'The method''s dataset table: per source and veracity, claims, articles (claim–article pairs as in the paper''s Table 3), distinct articles, pairs and the count of each stance.';
COMMENT ON VIEW v_paper_table3 IS 'Table 3 of the AraStance paper in its layout and headers: per source, claims, articles (pairs) and each stance, then the total.';
COMMENT ON VIEW v_paper_table4 IS 'Table 4 of the AraStance paper in its layout and headers: per split (Train, Dev, Test) and in total, claims, articles (pairs) and each stance.';
