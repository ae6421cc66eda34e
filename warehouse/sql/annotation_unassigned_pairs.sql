-- Ids of the annotatable pairs (claim not excluded, article stored) that no round has assigned,
-- nobody has labelled and that hold no gold label yet: the pool a new round draws from, so no pair
-- is annotated twice, and a pair whose stance is known already (a dataset file's gold label,
-- loaded by `dataset load`) costs no annotator time.
SELECT p.pair_id FROM claim_article_pairs p JOIN claims c USING (claim_id) JOIN articles a USING (article_id)
WHERE c.status <> 'excluded'
  AND p.pair_id NOT IN (SELECT pair_id FROM annotation_assignments)
  AND p.pair_id NOT IN (SELECT pair_id FROM annotations)
  AND p.pair_id NOT IN (SELECT pair_id FROM gold_labels);
