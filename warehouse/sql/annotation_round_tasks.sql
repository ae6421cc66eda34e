-- Every assignment of one round (parameter: the round name) with the annotator and the same
-- claim and article fields as annotation_pair_tasks.sql (override text first), by annotator
-- then pair: the order in which the task files are written.
SELECT s.annotator_id, p.pair_id, p.claim_id, COALESCE(o.cleaned_text, c.cleaned_text, c.title, '') AS claim,
       c.url AS claim_url, c.source_id, p.article_id, COALESCE(a.title, '') AS article_title,
       a.url AS article_url, COALESCE(a.text, '') AS article
FROM claim_article_pairs p
JOIN claims c USING (claim_id)
JOIN articles a USING (article_id)
LEFT JOIN claim_overrides o USING (claim_id)
JOIN annotation_assignments s USING (pair_id)
WHERE s.round = ?
ORDER BY s.annotator_id, p.pair_id;
