-- Query building (retrieval, claim analysis). When two of a claim's query kinds come out with
-- the same text and date window (no entities found: entities_date = claim_date; nothing cut:
-- vp_date = claim_date), the query is stored once, under the first kind in the method's order
-- (claim, claim_date, entities_date, vp_date, vp_entities_date); the other kinds it stands for
-- are listed here, so that "which queries did this claim get" stays answerable.
-- queries.analyzer is 'stanza' or 'rules' for kinds built from the claim analysis and 'none'
-- for kinds that use the claim text alone (claim, claim_date and all true-claim queries).
-- The column is added, filled and given its default in three steps: in one (ADD COLUMN … DEFAULT [])
-- DuckDB 1.5 fails on a table of more than 2,048 rows with an internal error that leaves the
-- database unwritable ("Operation requires a flat vector"). Warehouses that applied the one-step
-- form are accepted as they are (warehouse/migrate.py, REWRITTEN).
ALTER TABLE queries ADD COLUMN also_kinds VARCHAR[];
UPDATE queries SET also_kinds = [];
ALTER TABLE queries ALTER COLUMN also_kinds SET DEFAULT [];
