-- Core schema of the claim warehouse: every page, claim, query, hit, article, label and model
-- run with its provenance. Natural keys (source + canonical URL, claim + article, ...) carry
-- PRIMARY KEY / UNIQUE constraints so that loading the same batch twice adds nothing.
-- Ids are stable text hashes of those natural keys (see warehouse.ids.stable_id), so staging
-- files can name rows before they reach the warehouse. No FOREIGN KEYs: DuckDB forbids
-- updating a referenced row, and loads upsert; relations are documented per column instead.

CREATE TABLE sources (
    source_id      VARCHAR PRIMARY KEY,           -- 'araanews', 'dabegad', 'norumors', 'reuters', news domains
    name           VARCHAR NOT NULL,
    country        VARCHAR,
    kind           VARCHAR NOT NULL CHECK (kind IN ('fact_check', 'news', 'search')),
    base_url       VARCHAR,
    default_veracity VARCHAR CHECK (default_veracity IN ('false', 'true'))
);

CREATE TABLE crawl_runs (
    run_id         VARCHAR PRIMARY KEY,
    source_id      VARCHAR NOT NULL,              -- sources.source_id
    started_at     TIMESTAMP NOT NULL,
    finished_at    TIMESTAMP,
    staging_path   VARCHAR,
    pages          INTEGER DEFAULT 0,
    items          INTEGER DEFAULT 0,
    new_claims     INTEGER DEFAULT 0,
    errors         INTEGER DEFAULT 0,
    dropped        JSON,                          -- {"reason": count}
    stats          JSON                           -- Scrapy's stats and anything else
);

CREATE TABLE raw_pages (
    page_id        VARCHAR PRIMARY KEY,           -- stable_id(url, content_hash)
    url            VARCHAR NOT NULL,
    source_id      VARCHAR,
    run_id         VARCHAR,                       -- crawl_runs.run_id of first fetch
    fetched_at     TIMESTAMP NOT NULL,
    http_status    INTEGER,
    content_hash   VARCHAR NOT NULL,              -- sha256 of the body
    html_zlib      BLOB,                          -- zlib-compressed body
    parse_status   VARCHAR DEFAULT 'ok' CHECK (parse_status IN ('ok', 'failed', 'skipped')),
    parse_error    VARCHAR,
    UNIQUE (url, content_hash)
);

CREATE TABLE claims (
    claim_id        VARCHAR PRIMARY KEY,          -- stable_id(source_id, canonical_url)
    source_id       VARCHAR NOT NULL,
    url             VARCHAR NOT NULL,
    canonical_url   VARCHAR NOT NULL,
    title           VARCHAR,
    raw_text        VARCHAR,                      -- claim as published (debunk framing included)
    cleaned_text    VARCHAR,                      -- the claim statement after preprocessing
    normalized_text VARCHAR,                      -- for matching only, never displayed
    body_text       VARCHAR,
    veracity        VARCHAR NOT NULL CHECK (veracity IN ('false', 'true')),
    published_date  DATE,
    published_raw   VARCHAR,                      -- the date string as the site wrote it
    category        VARCHAR,
    is_multimedia   BOOLEAN DEFAULT FALSE,
    claim_review    JSON,                         -- schema.org ClaimReview when present
    content_hash    VARCHAR,                      -- hash of normalized_text, for exact duplicates
    first_seen      TIMESTAMP NOT NULL,
    last_seen       TIMESTAMP NOT NULL,
    status          VARCHAR NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'excluded', 'review')),
    status_reason   VARCHAR,
    run_id          VARCHAR,                      -- crawl_runs.run_id that first saw it
    page_id         VARCHAR,                      -- raw_pages.page_id
    UNIQUE (source_id, canonical_url)
);

CREATE TABLE claim_overrides (
    claim_id       VARCHAR PRIMARY KEY,           -- claims.claim_id; always wins over rule output
    cleaned_text   VARCHAR NOT NULL,
    reviewer       VARCHAR NOT NULL,
    reviewed_at    TIMESTAMP NOT NULL,
    note           VARCHAR
);

CREATE TABLE claim_clusters (
    claim_id       VARCHAR PRIMARY KEY,           -- claims.claim_id
    cluster_id     VARCHAR NOT NULL,              -- claim_id of the cluster's representative
    similarity     DOUBLE,
    method         VARCHAR NOT NULL               -- 'exact_hash' or 'shingle_jaccard'
);

CREATE TABLE queries (
    query_id       VARCHAR PRIMARY KEY,           -- stable_id(claim_id, kind, text, window)
    claim_id       VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,              -- 'claim', 'claim_date', 'entities_date', 'vp_date', 'vp_entities_date', ...
    text           VARCHAR NOT NULL,
    window_start   DATE,
    window_end     DATE,
    analyzer       VARCHAR NOT NULL,              -- 'stanza' or 'rules'
    created_at     TIMESTAMP NOT NULL,
    UNIQUE (claim_id, kind, text, window_start, window_end)
);

CREATE TABLE search_hits (
    hit_id         VARCHAR PRIMARY KEY,           -- stable_id(query_id, backend, url)
    query_id       VARCHAR NOT NULL,
    backend        VARCHAR NOT NULL,
    rank           INTEGER NOT NULL,
    url            VARCHAR NOT NULL,
    title          VARCHAR,
    snippet        VARCHAR,
    published_date DATE,
    retrieved_at   TIMESTAMP NOT NULL,
    UNIQUE (query_id, backend, url)
);

CREATE TABLE articles (
    article_id     VARCHAR PRIMARY KEY,           -- stable_id(canonical_url)
    url            VARCHAR NOT NULL,
    canonical_url  VARCHAR NOT NULL UNIQUE,
    domain         VARCHAR,
    title          VARCHAR,
    published_date DATE,
    text           VARCHAR,
    language       VARCHAR,
    fetch_status   VARCHAR NOT NULL DEFAULT 'ok' CHECK (fetch_status IN ('ok', 'failed', 'not_arabic', 'empty')),
    fetch_error    VARCHAR,
    http_status    INTEGER,
    fetched_at     TIMESTAMP,
    content_hash   VARCHAR,
    page_id        VARCHAR                        -- raw_pages.page_id
);

CREATE TABLE claim_article_pairs (
    pair_id        VARCHAR PRIMARY KEY,           -- stable_id(claim_id, article_id)
    claim_id       VARCHAR NOT NULL,
    article_id     VARCHAR NOT NULL,
    rank           INTEGER,
    similarity     DOUBLE,
    reason         VARCHAR,                       -- why the document was kept
    created_at     TIMESTAMP NOT NULL,
    UNIQUE (claim_id, article_id)
);

CREATE TABLE annotations (
    annotation_id  VARCHAR PRIMARY KEY,           -- stable_id(pair_id, annotator_id, round)
    pair_id        VARCHAR NOT NULL,
    annotator_id   VARCHAR NOT NULL,
    label          VARCHAR NOT NULL CHECK (label IN ('agree', 'disagree', 'discuss', 'unrelated')),
    round          VARCHAR NOT NULL,              -- e.g. 'pilot-1', 'prod-1', 'adjudication'
    round_kind     VARCHAR NOT NULL CHECK (round_kind IN ('pilot', 'production', 'adjudication')),
    annotated_at   TIMESTAMP NOT NULL,
    source_file    VARCHAR,
    UNIQUE (pair_id, annotator_id, round)
);

CREATE TABLE gold_labels (
    pair_id        VARCHAR PRIMARY KEY,
    label          VARCHAR NOT NULL CHECK (label IN ('agree', 'disagree', 'discuss', 'unrelated')),
    method         VARCHAR NOT NULL CHECK (method IN ('agreed', 'adjudicated', 'single')),
    decided_at     TIMESTAMP NOT NULL
);

CREATE TABLE splits (
    claim_id       VARCHAR PRIMARY KEY,           -- one split per claim: no leakage by construction
    split          VARCHAR NOT NULL CHECK (split IN ('train', 'dev', 'test')),
    assigned_at    TIMESTAMP NOT NULL,
    seed           INTEGER
);

CREATE TABLE model_runs (
    run_id           VARCHAR PRIMARY KEY,
    model_name       VARCHAR NOT NULL,
    model_kind       VARCHAR NOT NULL,            -- 'cpu', 'transformer', ...
    config           JSON,
    data_fingerprint VARCHAR,
    code_version     VARCHAR,
    started_at       TIMESTAMP NOT NULL,
    finished_at      TIMESTAMP,
    artifact_path    VARCHAR,
    status           VARCHAR NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed'))
);

CREATE TABLE evaluations (
    run_id         VARCHAR NOT NULL,              -- model_runs.run_id
    dataset        VARCHAR NOT NULL,
    split          VARCHAR NOT NULL,
    metric         VARCHAR NOT NULL,              -- 'f1', 'accuracy', 'macro_f1', 'precision', 'recall', 'support'
    label          VARCHAR NOT NULL DEFAULT '',   -- '' for whole-set metrics
    value          DOUBLE NOT NULL,
    PRIMARY KEY (run_id, dataset, split, metric, label)
);
