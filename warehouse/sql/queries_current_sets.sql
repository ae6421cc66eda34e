-- Ids of the given claims (claim_ids, with inputs: each claim's current fingerprint at the same
-- position) whose queries were built from those inputs: the others need their queries built.
SELECT DISTINCT s.claim_id
FROM query_sets s JOIN (SELECT unnest($claim_ids::VARCHAR[]) AS claim_id, unnest($inputs::VARCHAR[]) AS inputs) c
  USING (claim_id, inputs);
