"""Stage logic as plain, typed, testable functions (preprocessing, selection, retrieval,
annotation, models). Flows wrap them as Prefect tasks; nothing here needs a Prefect run."""
