-- Per claim with gold labels (excluded claims left out): its group (the near-duplicate cluster,
-- so that duplicates share a split; else the claim itself), source, veracity and label counts.
-- The splitter and the all-unrelated flags are computed from these rows. It reads the base
-- tables, not v_gold_pairs, which already leaves flagged claims out.
SELECT c.claim_id, COALESCE(k.cluster_id, c.claim_id) AS group_id, c.source_id, c.veracity,
       count(*) FILTER (WHERE g.label = 'agree')     AS agree,
       count(*) FILTER (WHERE g.label = 'disagree')  AS disagree,
       count(*) FILTER (WHERE g.label = 'discuss')   AS discuss,
       count(*) FILTER (WHERE g.label = 'unrelated') AS unrelated,
       count(*)                                      AS pairs
FROM claim_article_pairs p
JOIN gold_labels g USING (pair_id)
JOIN claims c USING (claim_id)
LEFT JOIN claim_clusters k USING (claim_id)
WHERE c.status <> 'excluded'
GROUP BY ALL
ORDER BY c.claim_id;
