-- Claim and article fields of the given pairs (parameter: the pair ids, a VARCHAR list), as an
-- annotation task shows them. The claim text is a reviewer's override when there is one, else
-- the rule output: annotators must see the text the dataset will hold.
SELECT p.pair_id, p.claim_id, COALESCE(o.cleaned_text, c.cleaned_text, c.title, '') AS claim,
       c.url AS claim_url, c.source_id, p.article_id, COALESCE(a.title, '') AS article_title,
       a.url AS article_url, COALESCE(a.text, '') AS article
FROM claim_article_pairs p
JOIN claims c USING (claim_id)
JOIN articles a USING (article_id)
LEFT JOIN claim_overrides o USING (claim_id)
WHERE p.pair_id IN (SELECT unnest(?::VARCHAR[]));
