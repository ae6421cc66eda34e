-- How many gold-labelled pairs one split (parameter: train, dev or test) holds: the pairs that
-- model_gold_examples reads, counted without reading their text (whether the warehouse has a split
-- to train or evaluate on yet).
SELECT count(*)
FROM v_stance_examples
WHERE split = ?;
