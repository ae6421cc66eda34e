-- True-claim selection: which Reuters headlines were chosen for which false seed, with what
-- score and rank, and which seeds or headlines were left out and why.
-- run_id = stable_id('selection', params, input fingerprint): running again on the same claims
-- with the same settings names the same run, so its rows are already there and nothing is added.

CREATE TABLE selection_runs (
    run_id             VARCHAR PRIMARY KEY,
    started_at         TIMESTAMP NOT NULL,
    finished_at        TIMESTAMP NOT NULL,
    params             JSON NOT NULL,            -- window, top_k, min_similarity, analyzer, policy, sample
    input_fingerprint  VARCHAR NOT NULL,         -- sha256 over every seed and candidate headline read
    seeds_total        INTEGER NOT NULL,         -- active false claims read
    seeds_eligible     INTEGER NOT NULL,         -- after the text/date screening
    seeds_used         INTEGER NOT NULL,         -- after sampling
    seeds_matched      INTEGER NOT NULL,         -- seeds with at least one headline
    headlines_total    INTEGER NOT NULL,
    headlines_eligible INTEGER NOT NULL,
    selected_headlines INTEGER NOT NULL,         -- distinct headlines chosen
    matches            INTEGER NOT NULL,         -- (seed, headline) pairs
    excluded           JSON                      -- {"seed:no_date": n, "headline:multimedia": n, ...}
);

CREATE TABLE selection_matches (
    run_id             VARCHAR NOT NULL,         -- selection_runs.run_id
    seed_claim_id      VARCHAR NOT NULL,         -- claims.claim_id of the false claim
    headline_claim_id  VARCHAR NOT NULL,         -- claims.claim_id of the Reuters headline (veracity 'true')
    score              DOUBLE NOT NULL,          -- TF-IDF cosine similarity
    rank               INTEGER NOT NULL,         -- 1 = most similar headline of this seed
    PRIMARY KEY (run_id, seed_claim_id, headline_claim_id)
);

CREATE TABLE selection_exclusions (
    run_id             VARCHAR NOT NULL,         -- selection_runs.run_id
    claim_id           VARCHAR NOT NULL,
    role               VARCHAR NOT NULL CHECK (role IN ('seed', 'headline')),
    reason             VARCHAR NOT NULL CHECK (reason IN ('no_text', 'no_date', 'multimedia', 'duplicate')),
    detail             VARCHAR,                  -- for 'duplicate': the claim_id that was kept
    PRIMARY KEY (run_id, claim_id, role)
);
