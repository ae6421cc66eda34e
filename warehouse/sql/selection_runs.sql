-- The latest selection runs (at most limit) with their counts and parameters, newest first:
-- what the CLI lists for selection runs.
SELECT run_id, started_at, finished_at, seeds_used, seeds_matched, headlines_eligible,
       selected_headlines, matches, excluded, params
FROM selection_runs
ORDER BY started_at DESC, run_id
LIMIT $limit;
