-- Per annotator: how many gold-labelled pairs they labelled in pilot or production rounds
-- (adjudication labels are the gold itself, so they are left out) and how often their label is
-- the gold label: a per-annotator quality figure beside Fleiss' kappa.
SELECT a.annotator_id, count(*) AS labelled_gold_pairs,
       count(*) FILTER (WHERE a.label = g.label) AS same_as_gold,
       round(count(*) FILTER (WHERE a.label = g.label) / count(*), 4) AS share
FROM annotations a JOIN gold_labels g USING (pair_id)
WHERE a.round_kind <> 'adjudication'
GROUP BY a.annotator_id
ORDER BY a.annotator_id;
