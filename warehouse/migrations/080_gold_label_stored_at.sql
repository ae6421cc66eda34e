-- When each gold label was written: what the retraining trigger counts from. decided_at is when the
-- label's last counting annotation was made, on the annotators' clock: a label annotated before a
-- training began but written by a later build (an annotation file imported after it, a build running
-- while it trained) was never counted as new. Rows stored before this are counted by decided_at.
ALTER TABLE gold_labels ADD COLUMN stored_at TIMESTAMP;
