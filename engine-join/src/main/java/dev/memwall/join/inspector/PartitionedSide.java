package dev.memwall.join.inspector;

import java.lang.foreign.MemorySegment;

/**
 * One side's tuples after partitioning ({@link Partitioning}): {@code W}-byte records, and beside
 * them a slot array of their 4-byte hash codes (the record at position {@code i} has code {@code i}),
 * so that hashing, filtering and building a {@link CacheTable} read 4 bytes a tuple, not a record's
 * line. Region {@code r} (partition {@code r / t}, thread {@code r % t}) holds positions
 * {@code [start[r], start[r + 1])}. It exists so that the phases after partitioning read either side
 * the same way.
 *
 * <p>Ownership: the segments belong to the {@link RunContext} and are valid until it closes;
 * {@code start} is shared, not copied, and must not be changed. Thread safety: the partitioning
 * threads write the segments, each its own regions; everything after reads only.
 *
 * @param records the records, {@link Partitioning#recordBytes()} apart
 * @param codes the hash codes, 4 bytes apart
 * @param start per region its first position, and one more entry: the tuple count
 */
record PartitionedSide(MemorySegment records, MemorySegment codes, int[] start) {}
