-- TPC-H Q14 as a template, the specification's substitution parameters in braces (DuckDB dialect; text from io.trino.tpch 1.4)
SELECT 100.00 * sum(CASE
                    WHEN p_type LIKE 'PROMO%'
                      THEN l_extendedprice * (1 - l_discount)
                    ELSE 0
                    END) / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM
  lineitem,
  part
WHERE
  l_partkey = p_partkey
  AND l_shipdate >= DATE '{DATE}'
  AND l_shipdate < DATE '{DATE}' + INTERVAL '1' MONTH
