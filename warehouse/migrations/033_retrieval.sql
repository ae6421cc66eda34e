-- Document retrieval bookkeeping: the search cache (re-runs spend no quota), the per-day query
-- count of metered backends, why each found document was kept or dropped, and each claim's
-- retrieval progress (a failed run resumes with the claims not yet done).

CREATE TABLE search_cache (
    cache_key      VARCHAR PRIMARY KEY,           -- stable_id(backend, query_text, window_start, window_end, num)
    backend        VARCHAR NOT NULL,
    query_text     VARCHAR NOT NULL,
    window_start   DATE,
    window_end     DATE,
    num            INTEGER NOT NULL,
    results        JSON NOT NULL,                 -- [{"url","title","snippet","published_date","rank"}]
    result_count   INTEGER NOT NULL,
    searched_at    TIMESTAMP NOT NULL
);

CREATE TABLE search_usage (
    day            DATE NOT NULL,                 -- UTC day the queries were sent
    backend        VARCHAR NOT NULL,
    queries        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, backend)
);

CREATE TABLE document_decisions (
    claim_id       VARCHAR NOT NULL,              -- claims.claim_id
    canonical_url  VARCHAR NOT NULL,
    url            VARCHAR NOT NULL,              -- as the search engine returned it
    domain         VARCHAR,
    decision       VARCHAR NOT NULL CHECK (decision IN ('kept', 'dropped')),
    reason         VARCHAR NOT NULL,              -- 'within_limit', 'news_domain_top_k', 'not_news_domain', 'below_top_k'
    rank           INTEGER,                       -- position among the kept documents
    similarity     DOUBLE,                        -- TF-IDF cosine to the claim (when ranked)
    best_rank      INTEGER NOT NULL,              -- best search rank over the claim's queries
    query_kinds    VARCHAR NOT NULL,              -- comma-separated kinds of the queries that found it
    decided_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (claim_id, canonical_url)
);

CREATE TABLE claim_retrieval (
    claim_id       VARCHAR PRIMARY KEY,           -- claims.claim_id
    backend        VARCHAR NOT NULL,
    status         VARCHAR NOT NULL CHECK (status IN ('searched', 'done', 'failed')),
    queries        INTEGER NOT NULL DEFAULT 0,
    hits           INTEGER NOT NULL DEFAULT 0,
    kept           INTEGER NOT NULL DEFAULT 0,
    pairs          INTEGER NOT NULL DEFAULT 0,
    error          VARCHAR,
    updated_at     TIMESTAMP NOT NULL
);
