/**
 * Result verification: the official SF 1 answers and the TPC-H comparison rules
 * ({@link dev.memwall.tpch.verify.OfficialAnswers}, {@link dev.memwall.tpch.verify.ColumnPrecision},
 * {@link dev.memwall.tpch.verify.ResultComparator}) and DuckDB as oracle and peer on the same data
 * ({@link dev.memwall.tpch.verify.DuckDbOracle}).
 */
package dev.memwall.tpch.verify;
