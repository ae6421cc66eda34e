-- The pair of each given (claim_id, article_id) (parameters: the claim ids and the article ids,
-- two VARCHAR lists of one length, zipped), for a task sheet row whose pair_id a spreadsheet
-- turned into a number: its claim_id and article_id cells still name its pair, and the
-- UNIQUE (claim_id, article_id) of claim_article_pairs makes that pair at most one.
SELECT p.claim_id, p.article_id, p.pair_id
FROM claim_article_pairs p
JOIN (SELECT unnest(?::VARCHAR[]) AS claim_id, unnest(?::VARCHAR[]) AS article_id) k USING (claim_id, article_id);
