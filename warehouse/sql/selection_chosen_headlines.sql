-- The chosen true-claim headlines of every selection run together (at most limit), the most
-- often chosen first, with their date, best score and rank and the text (override first).
SELECT s.claim_id, c.published_date, s.seeds, s.best_score, s.best_rank,
       coalesce(o.cleaned_text, c.cleaned_text) AS text
FROM v_selected_true_claims s
JOIN claims c USING (claim_id)
LEFT JOIN claim_overrides o USING (claim_id)
ORDER BY s.seeds DESC, s.best_score DESC, s.claim_id
LIMIT $limit;
