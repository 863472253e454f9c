package dev.memwall.core.partition;

/**
 * How the threads of a parallel partitioning pass coordinate writing their output (Cieslewicz and
 * Ross, "Data Partitioning on Chip Multiprocessors", DaMoN 2008, Table 1).
 */
public enum PartitionWriter {
  /**
   * Each thread partitions its own slice of the input into its own region of the output, with no
   * coordination: a partition ends up as one fragment per thread (not contiguous).
   */
  INDEPENDENT,
  /**
   * One output region per partition shared by all threads, whose cursor every tuple advances
   * atomically: contiguous partitions, contention on every write.
   */
  CONCURRENT,
  /**
   * Every thread counts its slice, the counts are combined into per-thread write offsets, then every
   * thread moves its tuples without coordination: contiguous partitions, two passes over the input.
   */
  COUNT_THEN_MOVE,
  /**
   * Shared per-partition regions claimed a chunk of tuples at a time with one atomic operation per
   * chunk ("parallel buffers"); the at most one partly filled chunk per thread and partition is
   * compacted at the end: contiguous partitions, contention only per chunk.
   */
  PARALLEL_BUFFERS
}
