-- Deletes the pairs of the given claims (claim_ids) that are not among the pairs their kept
-- documents give now (pair_ids) and that annotation has not touched: no round assigned them, no
-- one labelled them, they have no gold label and no pilot discussion (every table that holds a
-- pair_id). A pair annotation has touched stays, whatever became of its document.
DELETE FROM claim_article_pairs
WHERE claim_id IN (SELECT unnest($claim_ids::VARCHAR[])) AND pair_id NOT IN (SELECT unnest($pair_ids::VARCHAR[]))
  AND pair_id NOT IN (SELECT pair_id FROM annotation_assignments)
  AND pair_id NOT IN (SELECT pair_id FROM annotations)
  AND pair_id NOT IN (SELECT pair_id FROM gold_labels)
  AND pair_id NOT IN (SELECT pair_id FROM pilot_discussions);
