/**
 * memwall on Spark (4.2, Scala 2.13 artifacts, Spark in {@code provided} scope).
 *
 * <ul>
 *   <li>{@link dev.memwall.spark.MemwallDataSource}: the {@code memwall} data source (DataSource V2):
 *       {@code spark.read.format("memwall").load(dir)} reads Arrow IPC files through memwall's zero-copy
 *       mapping as columnar batches Spark reads in place, with column pruning, filters evaluated by memwall's
 *       kernels, and statistics.
 *   <li>Inside each task, memwall's memory is a budget backed by a Spark {@code MemoryConsumer} of the task,
 *       its cancellation token follows the task's interruption and failure, and everything is freed when the
 *       task completes, however it ends.
 *   <li>{@link dev.memwall.spark.MemwallSettings}: the options and configuration keys.
 * </ul>
 */
package dev.memwall.spark;
