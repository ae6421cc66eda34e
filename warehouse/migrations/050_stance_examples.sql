-- The stance models' view of the gold data: one row per gold-labelled claim-article pair with the
-- texts a model reads and the split of its claim. The claim text is the reviewer's override when
-- there is one, else the preprocessed statement; excluded claims, claims left out of the dataset
-- (all documents unrelated; a claim split before it was flagged) and unfetched articles drop out.

CREATE OR REPLACE VIEW v_stance_examples AS
SELECT
    p.pair_id,
    p.claim_id,
    p.article_id,
    coalesce(o.cleaned_text, c.cleaned_text) AS claim_text,
    a.text                                   AS article_text,
    a.title                                  AS article_title,
    a.url                                    AS article_url,
    g.label,
    s.split
FROM claim_article_pairs p
JOIN gold_labels g USING (pair_id)
JOIN claims c ON c.claim_id = p.claim_id
JOIN articles a ON a.article_id = p.article_id
JOIN splits s ON s.claim_id = p.claim_id
LEFT JOIN claim_overrides o ON o.claim_id = p.claim_id
WHERE c.status <> 'excluded' AND a.fetch_status = 'ok'
  AND p.claim_id NOT IN (SELECT claim_id FROM dataset_claim_flags);  -- left out: every document unrelated
