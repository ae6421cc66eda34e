-- The row id ranges [first, past) that cut a table of the attached warehouse file into runs of
-- about $bytes bytes, in row id order: warehouse/lake_copy.py copies one run per statement, because
-- the lake's Parquet writer holds a statement's rows in memory until it writes them out. Sizes are
-- summed per block of $block row ids first (an aggregate that streams; a window over the rows
-- themselves held their page bodies); a run starts at the block where the bytes before it pass a
-- multiple of $bytes. The format placeholders: "rows" is the file's table
-- (copy_source.main."raw_pages"), "row_bytes" an expression of a row's size in bytes.
WITH blocks AS (
    SELECT rowid // $block AS block, sum({row_bytes}) AS bytes FROM {rows} GROUP BY block
), runs AS (
    SELECT block, coalesce(sum(bytes) OVER (ORDER BY block ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
    FROM blocks
)
SELECT min(block) * $block AS first, (max(block) + 1) * $block AS past FROM runs GROUP BY before // $bytes ORDER BY first;
