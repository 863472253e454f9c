/**
 * TPC-H on Spark for the memwall command line: {@link dev.memwall.tpch.spark.SparkEngineProvider} gives
 * {@code ./memwall tpch} its {@code spark} engine, Spark SQL over the memwall data source with and without
 * memwall's extension. A tool module: it depends on Spark itself, which the library's {@code engine-spark}
 * leaves to the host.
 */
package dev.memwall.tpch.spark;
