-- Ids of the annotatable pairs (claim not excluded, article stored) that no round has assigned
-- and nobody has labelled: the pool a new round draws from, so no pair is annotated twice.
SELECT p.pair_id FROM claim_article_pairs p JOIN claims c USING (claim_id) JOIN articles a USING (article_id)
WHERE c.status <> 'excluded'
  AND p.pair_id NOT IN (SELECT pair_id FROM annotation_assignments)
  AND p.pair_id NOT IN (SELECT pair_id FROM annotations);
