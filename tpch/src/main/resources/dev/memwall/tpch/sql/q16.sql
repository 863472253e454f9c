-- TPC-H Q16 as a template, the specification's substitution parameters in braces (DuckDB dialect; text from io.trino.tpch 1.4)
SELECT
  p_brand,
  p_type,
  p_size,
  count(DISTINCT ps_suppkey) AS supplier_cnt
FROM
  partsupp,
  part
WHERE
  p_partkey = ps_partkey
  AND p_brand <> '{BRAND}'
  AND p_type NOT LIKE '{TYPE}%'
  AND p_size IN ({SIZES})
  AND ps_suppkey NOT IN (
    SELECT s_suppkey
    FROM
      supplier
    WHERE
      s_comment LIKE '%Customer%Complaints%'
  )
GROUP BY
  p_brand,
  p_type,
  p_size
ORDER BY
  supplier_cnt DESC,
  p_brand,
  p_type,
  p_size
