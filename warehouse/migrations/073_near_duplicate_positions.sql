-- Each prefix shingle of the near-duplicate index keeps its position in its text's prefix and
-- the text's size (distinct shingles), so a lookup can drop candidates by PPJoin's size and
-- positional bounds before verifying them (tasks/dedup_index.py): without them a new text's
-- candidates were a third of the warehouse. The index is derived data that the stored rows
-- cannot fill in (they lack both columns): the table is made anew and the state rows go, so
-- the next load re-clusters in full and rebuilds the index. No claim or cluster row changes.

DELETE FROM near_duplicate_index_state;
DROP TABLE near_duplicate_prefixes;
CREATE TABLE near_duplicate_prefixes (
    veracity       VARCHAR NOT NULL,
    shingle        UBIGINT NOT NULL,
    text_key       UBIGINT NOT NULL,               -- first 64 bits of claims.content_hash
    position       INTEGER NOT NULL,               -- the shingle's place in the text's order (0 = rarest)
    text_size      INTEGER NOT NULL                -- the text's distinct shingles
);
