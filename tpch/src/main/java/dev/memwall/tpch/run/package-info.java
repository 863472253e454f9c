/** Running TPC-H queries: warm-up, timing, verification and DuckDB side by side ({@link dev.memwall.tpch.run.TpchRunner}). */
package dev.memwall.tpch.run;
