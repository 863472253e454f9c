package dev.memwall.core.partition;

import java.lang.foreign.MemorySegment;

/**
 * The input of a {@link PackedRadixCluster}: {@link PackedTuples} produced block by block on
 * demand, for instance straight from a key column, so that the first pass reads the input twice
 * (to count, then to move) and never copies it whole before clustering.
 *
 * <p>Thread safety: {@link #fill} may be called concurrently for different blocks.
 */
public interface PackedSource {
  /** Tuples a block holds at most. */
  int BLOCK_TUPLES = 1024;

  /** How many blocks there are; the tuples are block 0's, then block 1's, and so on. */
  int blocks();

  /**
   * Writes block {@code block}'s tuples to {@code into} from index 0, the same ones in the same
   * order at every call, and returns how many (at most {@link #BLOCK_TUPLES}).
   */
  int fill(int block, MemorySegment into);

  /** The first {@code count} tuples of {@code tuples} as a source. */
  static PackedSource of(MemorySegment tuples, int count) {
    return new PackedSource() {
      @Override
      public int blocks() {
        return (count + BLOCK_TUPLES - 1) / BLOCK_TUPLES;
      }

      @Override
      public int fill(int block, MemorySegment into) {
        long from = (long) block * BLOCK_TUPLES;
        int n = (int) Math.min(BLOCK_TUPLES, count - from);
        MemorySegment.copy(tuples, from * PackedTuples.BYTES_PER_TUPLE, into, 0, n * PackedTuples.BYTES_PER_TUPLE);
        return n;
      }
    };
  }
}
