-- The texts of the articles of a batch of dataset_rows, '' for none: what the export writes. The ids come as
-- one parameter each ({keys} is that many ?, warehouse.keyed_reads), so the filter reaches the scan and only
-- their texts are read.
SELECT article_id, COALESCE(text, '') AS article
FROM articles
WHERE article_id IN ({keys});
