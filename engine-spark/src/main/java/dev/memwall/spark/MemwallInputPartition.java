package dev.memwall.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One file of a memwall scan: what a task reads. Serializable (Spark ships it to the executor).
 *
 * @param path the file, a local path every executor reads at the same place
 * @param rows its row count, as the driver found it
 */
record MemwallInputPartition(String path, long rows) implements InputPartition {}
