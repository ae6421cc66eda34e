-- Delete the claim_clusters rows of one veracity (parameter: the veracity) that the new
-- clustering (registered table __clusters) no longer has with the same cluster, similarity
-- and method. Rows that did not change are kept, so re-clustering unchanged claims writes
-- nothing and the rows left plus the new ones equal the new clustering.
DELETE FROM claim_clusters
WHERE claim_id IN (SELECT claim_id FROM claims WHERE veracity = ?)
  AND NOT EXISTS (
    SELECT 1 FROM __clusters n
    WHERE n.claim_id = claim_clusters.claim_id AND n.cluster_id = claim_clusters.cluster_id
      AND n.similarity = claim_clusters.similarity AND n.method = claim_clusters.method);
