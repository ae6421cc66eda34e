-- The dataset's gold pairs in export order (split, claim, article rank), one split (the split parameter) or
-- all of them (split NULL): the rows the JSON Lines / Parquet export writes, but for the article texts, which
-- are read a batch at a time (dataset_article_texts): sorting them all with these rows held every one in memory.
SELECT split, claim_id, source_id, veracity, claim_text AS claim, pair_id, article_id, article_url, article_title,
       rank, label AS stance
FROM v_dataset_pairs
WHERE $split::VARCHAR IS NULL OR split = $split::VARCHAR
ORDER BY split, claim_id, rank NULLS LAST, article_id;
