-- Claims left out of the dataset because every gold-labelled document is unrelated, per source.
SELECT c.source_id AS source, c.veracity, count(*) AS claims_left_out, sum(f.pairs) AS unrelated_pairs
FROM dataset_claim_flags f
JOIN claims c USING (claim_id)
WHERE f.flag = 'all_unrelated'
GROUP BY c.source_id, c.veracity
ORDER BY c.source_id, c.veracity;
