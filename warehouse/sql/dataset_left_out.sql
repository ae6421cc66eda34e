-- Claims left out of the dataset, per source, veracity and reason: all_unrelated (every
-- gold-labelled document unrelated) or split_conflict (a near-duplicate of the claim holds another
-- split, which its cluster keeps), with their gold-labelled pairs.
SELECT c.source_id AS source, c.veracity, f.reason, count(*) AS claims_left_out, sum(f.pairs) AS pairs
FROM (
    SELECT claim_id, flag AS reason, pairs FROM dataset_claim_flags
    UNION ALL
    SELECT claim_id, 'split_conflict', pairs FROM dataset_split_conflicts
) f
JOIN claims c USING (claim_id)
GROUP BY ALL
ORDER BY source, c.veracity, f.reason;
