-- The stored pairs of the given claims (claim_ids) that are not among the pairs their kept
-- documents give now (pair_ids): pairs of documents a later ranking or date check dropped.
SELECT pair_id, claim_id, article_id, rank
FROM claim_article_pairs
WHERE claim_id IN (SELECT unnest($claim_ids::VARCHAR[])) AND pair_id NOT IN (SELECT unnest($pair_ids::VARCHAR[]))
ORDER BY claim_id, rank, pair_id;
