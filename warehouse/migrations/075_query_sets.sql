-- Which queries each version of a claim gave. A claim's queries are built from its text (the
-- reviewer's override when there is one), its veracity, its date and search.date_window_months;
-- `inputs` fingerprints those four. When one of them changes (`claims review --set`, a corrected
-- date, another window), retrieval builds the claim's queries again and records the new set here:
-- the claim's current queries are those of the set of its current inputs. Queries of earlier sets
-- stay in `queries`, with their hits, and are no longer searched. A query shared by two sets (the
-- same kind, text and window) is one `queries` row in both. Queries stored before this table
-- belong to no set: retrieval builds them once more, and unchanged ones (same query_id) are
-- recorded here without another search.
CREATE TABLE query_sets (
    claim_id       VARCHAR NOT NULL,              -- claims.claim_id
    inputs         VARCHAR NOT NULL,              -- stable_id(text, veracity, published_date, window months)
    query_id       VARCHAR NOT NULL,              -- queries.query_id
    built_at       TIMESTAMP NOT NULL,
    PRIMARY KEY (claim_id, inputs, query_id)
);
