/**
 * The TPC-H queries as memwall plans ({@link dev.memwall.tpch.query.TpchQuery}) and their registry
 * ({@link dev.memwall.tpch.query.TpchQueries}).
 */
package dev.memwall.tpch.query;
