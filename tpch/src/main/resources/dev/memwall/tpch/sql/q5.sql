-- TPC-H Q5 as a template, the specification's substitution parameters in braces (DuckDB dialect; text from io.trino.tpch 1.4)
SELECT
  n_name,
  sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM
  customer,
  orders,
  lineitem,
  supplier,
  nation,
  region
WHERE
  c_custkey = o_custkey
  AND l_orderkey = o_orderkey
  AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey
  AND s_nationkey = n_nationkey
  AND n_regionkey = r_regionkey
  AND r_name = '{REGION}'
  AND o_orderdate >= DATE '{DATE}'
  AND o_orderdate < DATE '{DATE}' + INTERVAL '1' YEAR
GROUP BY
n_name
ORDER BY
revenue DESC
