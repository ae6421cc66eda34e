-- The date window enforced on kept documents: engines ignore or loosen date filters (SearXNG has
-- none), so after the articles are fetched each kept document's publication date is checked
-- against the window of the queries that found it. Outside: dropped with reason
-- 'outside_date_window'; no date anywhere: kept and flagged 'undated'.
ALTER TABLE document_decisions ADD COLUMN date_check VARCHAR;       -- inside | outside | undated | unrestricted
ALTER TABLE document_decisions ADD COLUMN published_date DATE;      -- the date checked
ALTER TABLE document_decisions ADD COLUMN date_source VARCHAR;      -- article (extracted) | search_engine
ALTER TABLE document_decisions ADD COLUMN window_start DATE;        -- the window it was checked against
ALTER TABLE document_decisions ADD COLUMN window_end DATE;
