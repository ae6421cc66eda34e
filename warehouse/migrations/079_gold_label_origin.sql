-- Where a gold label came from: 'annotation', decided from this warehouse's labels (`annotate
-- adjudicate`, `dataset build`), or 'dataset_file', loaded by `dataset load` from an AraStance-format
-- file. Annotation decisions withdraw and replace only their own: a label given to a loaded pair
-- never deletes or overrides what the file said. Rows stored before are told by their pair, which
-- `dataset load` writes with its own reason.
ALTER TABLE gold_labels ADD COLUMN origin VARCHAR DEFAULT 'annotation';
-- backfill, also on a lake:
UPDATE gold_labels SET origin = 'dataset_file'
WHERE pair_id IN (SELECT pair_id FROM claim_article_pairs WHERE reason = 'loaded from an AraStance-format file');
