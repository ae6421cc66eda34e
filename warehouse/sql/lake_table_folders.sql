-- The folders of the attached lake's tables, dropped tables included: where the lake writes its own
-- data files (warehouse/lake_cleanup.py deletes leftovers there only, never other files under the
-- data path, such as a backup or a second lake's data). Relative paths are joined as DuckLake joins
-- them: the data path, then the schema's folder, then the table's.
WITH data_path AS (
    SELECT value AS root FROM __ducklake_metadata_lake.ducklake_metadata WHERE key = 'data_path'
)
SELECT DISTINCT
    CASE WHEN NOT t.path_is_relative THEN t.path
         WHEN NOT s.path_is_relative THEN s.path || t.path
         ELSE (SELECT root FROM data_path) || s.path || t.path END AS folder
FROM __ducklake_metadata_lake.ducklake_table AS t
JOIN __ducklake_metadata_lake.ducklake_schema AS s USING (schema_id)
