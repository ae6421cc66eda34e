-- The stored texts that may reach the threshold with a new text: (new_key, the new text's key;
-- text_key, the stored one's). Registered table __probe holds the new texts' prefix shingles
-- (shingle, text_key, position, text_size). A pair must share a prefix shingle, have compatible
-- sizes (t|A| <= |B| <= |A|/t), and pass PPJoin's positional bound at its first shared prefix
-- shingle (first in the index's order, so the smallest position on both sides): no shingle
-- before it is shared, so the overlap is at most what follows it in either text, and Jaccard
-- >= t needs an overlap of ceil(t/(1+t) (|A|+|B|)). Parameters: the veracity, t, t, t/(1+t).
SELECT p.text_key AS new_key, x.text_key
FROM __probe p JOIN near_duplicate_prefixes x ON x.veracity = ? AND x.shingle = p.shingle
WHERE x.text_size >= ? * p.text_size - 1e-9 AND p.text_size >= ? * x.text_size - 1e-9
GROUP BY p.text_key, x.text_key, p.text_size, x.text_size
HAVING least(p.text_size - min(p.position), x.text_size - min(x.position)) >= ceil(? * (p.text_size + x.text_size) - 1e-9);
