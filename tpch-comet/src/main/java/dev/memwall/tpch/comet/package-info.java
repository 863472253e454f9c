/**
 * TPC-H on Apache DataFusion Comet: the {@code comet} engine that {@code ./memwall tpch --compare comet}
 * starts in a JVM of its own, on this module's class path (Spark 4.1, Comet's native library, Hadoop's
 * JDK 25 client), over a Parquet copy of the data set. A tool beside the library; nothing in memwall's
 * modules depends on it.
 */
package dev.memwall.tpch.comet;
