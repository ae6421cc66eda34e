-- Views for the warehouse's users: one column naming convention and a comment on every view.
--
-- Convention: snake_case; a column keeps the name of the table column it comes from (claim_id,
-- source_id, veracity, status_reason, label, split, rank, ...); a text is <entity>_text
-- (claim_text, article_text); a column of another entity is prefixed with it (article_url,
-- article_title); a count is the plural of what it counts (claims, articles, pairs, seeds) and a
-- per-label count is the label itself (agree, disagree, discuss, unrelated).

CREATE OR REPLACE VIEW v_claim_review_queue AS
SELECT
    c.claim_id,
    c.source_id,
    c.status_reason,
    c.raw_text,
    c.cleaned_text,
    c.title,
    c.url,
    c.published_date,
    c.first_seen
FROM claims c
LEFT JOIN claim_overrides o USING (claim_id)
WHERE c.status = 'review' AND o.claim_id IS NULL;

CREATE OR REPLACE VIEW v_retrieval_claims AS
SELECT
    c.claim_id,
    c.veracity,
    coalesce(o.cleaned_text, c.cleaned_text) AS claim_text,
    c.published_date,
    c.source_id
FROM claims c
LEFT JOIN claim_overrides o USING (claim_id)
WHERE c.status = 'active'
  AND (c.veracity = 'false'
       OR (c.veracity = 'true' AND c.claim_id IN (SELECT claim_id FROM v_selected_true_claims)));

CREATE OR REPLACE VIEW v_dataset_pairs AS
SELECT
    s.split,
    g.claim_id,
    g.source_id,
    g.veracity,
    COALESCE(o.cleaned_text, c.cleaned_text, c.title) AS claim_text,
    g.pair_id,
    g.article_id,
    a.url                                              AS article_url,
    a.title                                            AS article_title,
    a.text                                             AS article_text,
    p.rank,
    g.label
FROM v_gold_pairs g
JOIN splits s USING (claim_id)
JOIN claims c USING (claim_id)
JOIN articles a USING (article_id)
JOIN claim_article_pairs p USING (pair_id)
LEFT JOIN claim_overrides o USING (claim_id);

COMMENT ON VIEW v_claim_review_queue IS 'False claims the cleaning rules could not state as a claim (status review) and no reviewer has overridden yet; one row per claim. Review with `arastance claims review`.';
COMMENT ON VIEW v_selected_true_claims IS 'Reuters headlines that some selection run chose as true claims; one row per headline with how many seeds chose it, its best score and rank, and when it was first chosen.';
COMMENT ON VIEW v_retrieval_claims IS 'The claims document retrieval works on: every active false claim and every selected true claim, with the reviewer''s text when there is one; one row per claim.';
COMMENT ON VIEW v_gold_pairs IS 'Claim-article pairs with a gold stance label, excluded and left-out claims removed; one row per pair. The base of the dataset statistics.';
COMMENT ON VIEW v_source_stats IS 'The method''s dataset table: per source and veracity, claims, articles and pairs with a gold label and the count of each stance.';
COMMENT ON VIEW v_split_label_counts IS 'Per split (train, dev, test): claims, pairs and the count of each gold stance label.';
COMMENT ON VIEW v_dataset_pairs IS 'Everything the dataset export needs: one row per gold-labelled pair of a split claim, with the claim and article texts.';
COMMENT ON VIEW v_stance_examples IS 'The stance models'' input: one row per gold pair of a split claim whose article was fetched, with claim and article texts, label and split.';
