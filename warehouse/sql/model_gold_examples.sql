-- The gold-labelled pairs of one split (parameter: train, dev or test) with claim and article
-- text: a stance model's training or evaluation examples, in a stable order so that a run is
-- reproducible.
SELECT pair_id, claim_id, article_id, claim_text, article_text, article_title, article_url, label
FROM v_stance_examples
WHERE split = ?
ORDER BY claim_id, article_id;
