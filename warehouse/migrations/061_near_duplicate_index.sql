-- The index that lets a load match its new claims against the stored ones instead of
-- re-clustering the whole warehouse (tasks/dedup_index.py). Prefix filtering: under one fixed
-- order of the shingles (rarest first by the document frequencies frozen when the index was
-- built, then by hash), two texts with Jaccard >= t share a shingle among the first
-- |A| - ceil(t|A|) + 1 of each. The state row says for which clustering settings and for which
-- claims (a fingerprint of every claim the clustering reads) the index and claim_clusters are
-- current; when they are not, the next load re-clusters in full and rebuilds the index.

CREATE TABLE near_duplicate_index_state (
    veracity       VARCHAR PRIMARY KEY,
    threshold      DOUBLE NOT NULL,
    shingle_size   INTEGER NOT NULL,
    fingerprint    UBIGINT NOT NULL,               -- bit_xor(hash(claim_id, normalized_text, published_date))
    built_at       TIMESTAMP NOT NULL,             -- the last full rebuild (frozen frequencies)
    updated_at     TIMESTAMP NOT NULL
);

CREATE TABLE near_duplicate_shingle_df (
    veracity       VARCHAR NOT NULL,
    shingle        UBIGINT NOT NULL,               -- 64-bit hash of a character shingle
    df             INTEGER NOT NULL                -- distinct texts holding it when the index was built
);

CREATE TABLE near_duplicate_prefixes (
    veracity       VARCHAR NOT NULL,
    shingle        UBIGINT NOT NULL,
    text_key       UBIGINT NOT NULL                -- first 64 bits of claims.content_hash
);
