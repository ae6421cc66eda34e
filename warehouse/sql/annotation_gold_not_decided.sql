-- Gold labels of annotated pairs that a dataset file gave (`dataset load`, origin 'dataset_file'):
-- annotation decisions leave these rows as they are, so a label given to such a pair (in a round
-- exported before rounds left gold pairs out) neither withdraws nor replaces what the file said.
SELECT g.pair_id, g.label, g.method, g.decided_at
FROM gold_labels g
WHERE g.origin = 'dataset_file' AND g.pair_id IN (SELECT pair_id FROM annotations)
ORDER BY g.pair_id;
