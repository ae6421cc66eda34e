-- Make the set of each given claim's inputs (claim_ids, with inputs at the same position) its
-- claim's current set in query_sets, the one with the latest built_at, which the date-window
-- reads take as the claim's current queries (date_window_query_windows): a set that is not the
-- latest (built for earlier inputs that are current again) gets a built_at past the claim's
-- latest, at least stamp; a set already the latest keeps its own.
UPDATE query_sets AS s SET built_at = greatest($stamp::TIMESTAMP, l.built_at + INTERVAL 1 MICROSECOND)
FROM (SELECT unnest($claim_ids::VARCHAR[]) AS claim_id, unnest($inputs::VARCHAR[]) AS inputs) c,
     (SELECT claim_id, max(built_at) AS built_at, arg_max(inputs, built_at) AS inputs FROM query_sets
      GROUP BY claim_id) l
WHERE s.claim_id = c.claim_id AND s.inputs = c.inputs AND l.claim_id = s.claim_id AND l.inputs <> s.inputs;
