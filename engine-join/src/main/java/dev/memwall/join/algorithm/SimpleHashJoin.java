package dev.memwall.join.algorithm;

import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.HashedTuples;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The non-partitioned bucket-chained hash join, seed 000's "simple hash join" baseline: one hash
 * table over the whole right input (a bucket array of chain heads, about one tuple per bucket, and
 * a next-pointer per tuple), probed by the left input streamed in small blocks. Every probe is a
 * random access into a table that does not fit any cache once the input is large: a cache miss and,
 * with 4 KiB pages, a TLB miss per chain step.
 *
 * <p>Memory: the right tuples (12 bytes each), a bucket array of 4 bytes per bucket, 4 bytes of chain
 * per right tuple, and one probe block. It has no settings. Thread safety: stateless.
 */
public final class SimpleHashJoin implements JoinMethod<Void> {
  /** The algorithm. */
  public static final SimpleHashJoin METHOD = new SimpleHashJoin();
  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private SimpleHashJoin() {}

  /** Working memory for the given input sizes. */
  public static long bytesFor(long leftRows, long rightRows, long rightNullBound) {
    return HashedSide.bytesFor(rightRows, 0, null) + 4L * buckets(rightRows) + 4L * Math.max(1, rightRows)
        + ProbeBlock.bytes();
  }

  static int buckets(long rows) {
    return (int) Math.max(2, Long.highestOneBit(Math.max(1, rows) * 2 - 1));
  }

  @Override
  public long workingBytes(JoinInput sides, Void settings) {
    return bytesFor(sides.left().rowCount(), sides.right().rowCount(), 0);
  }

  @Override
  public Details run(JoinInput input, JoinOutput out, Void settings) {
    try (HashedSide right = HashedSide.extract(input.memory(), input.right(), false)) {
      int n = right.count();
      int buckets = buckets(n);
      int shift = 64 - Integer.numberOfTrailingZeros(buckets);
      try (OffHeapBuffer headBuffer = input.memory().allocate(4L * buckets, Placement.HUGE_PAGES);
          OffHeapBuffer nextBuffer = input.memory().allocate(4L * Math.max(1, n), Placement.HUGE_PAGES);
          ProbeBlock block = new ProbeBlock(input.memory())) {
        MemorySegment heads = headBuffer.segment();
        MemorySegment next = nextBuffer.segment();
        MemorySegment rh = right.tuples().hashes();
        MemorySegment rr = right.tuples().rows();
        for (int i = 0; i < n; i++) {
          int b = (int) (rh.getAtIndex(HASH, i) >>> shift);
          next.setAtIndex(INT, i, heads.getAtIndex(INT, b));
          heads.setAtIndex(INT, b, i + 1);
        }
        RowMatcher matcher = new RowMatcher(input, out);
        MemorySegment lh = block.tuples.hashes();
        MemorySegment lr = block.tuples.rows();
        for (int batch = 0; batch < input.left().batches(); batch++) {
          for (int from = 0; from < input.left().batchRows(batch); from += ProbeBlock.ROWS) {
            int keyed = block.fill(input.left(), batch, from);
            for (int k = 0; k < keyed; k++) {
              long h = lh.getAtIndex(HASH, k);
              int leftRow = lr.getAtIndex(INT, k);
              for (int e = heads.getAtIndex(INT, (int) (h >>> shift)); e != 0; e = next.getAtIndex(INT, e - 1)) {
                if (rh.getAtIndex(HASH, e - 1) == h && matcher.offer(leftRow, rr.getAtIndex(INT, e - 1))) {
                  break;
                }
              }
              matcher.finish(leftRow);
            }
            block.emitNullRows(input, out);
          }
        }
      }
    }
    return NoDetails.NONE;
  }
}
