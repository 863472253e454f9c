package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.keys.KeyColumns;

/**
 * The array join (Schuh et al.'s ARRAY, DuckDB's perfect hash join): a {@link DenseKeyTable} built on
 * the right input's keys, probed with the left input's keys themselves, so a probe is a subtraction,
 * a range test and one load, with no hash and no slot to compare. It fits a right input whose key
 * is one integral column, unique, and dense enough that an array over its range is no larger than
 * the {@link OpenAddressingTable} the open-addressing join would build; for any other right input
 * the run is the open-addressing join ({@link OpenAddressingHashJoin}) with the settings' fallback,
 * and its {@link Ran details} say so.
 *
 * <p>Neither input is copied: the right one is read twice to build the array (its range, then its
 * rows), the left one a block of {@value ProbeBlock#ROWS} keys at a time, on {@link Settings#threads}
 * threads. Memory: the array, 4 bytes per value of the right keys' range, charged as heap
 * ({@link DenseKeyTable}); its bound is the open-addressing join's working memory, which {@link
 * #workingBytes} reports. Thread safety: stateless.
 */
public final class DenseKeyJoin implements JoinMethod<DenseKeyJoin.Settings> {
  /** The algorithm. */
  public static final DenseKeyJoin METHOD = new DenseKeyJoin();
  /** Left blocks each probing thread should get at least: fewer and starting a thread costs more than it saves. */
  private static final int BLOCKS_PER_THREAD = 64;

  /**
   * How the join runs.
   *
   * @param threads probing threads (at least 1); the array is built on the calling thread
   * @param fallback the open-addressing join's settings, for a right input the array does not fit
   */
  public record Settings(int threads, OpenAddressingHashJoin.Settings fallback) {
    public Settings {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1, got " + threads);
      }
    }
  }

  /** What ran: the array join ({@code dense}) or, for right keys it does not fit, the open-addressing join. */
  public record Ran(boolean dense) implements Details {
    @Override
    public String toString() {
      return dense ? "array join over the right keys' range"
          : "the right keys do not fit an array (a key repeats, or their range is too wide): open-addressing join";
    }
  }

  private DenseKeyJoin() {}

  @Override
  public long workingBytes(JoinInput sides, Settings settings) {
    return OpenAddressingHashJoin.METHOD.workingBytes(sides, settings.fallback());
  }

  @Override
  public Details run(JoinInput input, JoinOutput out, Settings settings) {
    DenseKeyTable table = DenseKeyTable.build(input.right(), input.memory());
    if (table == null) {
      OpenAddressingHashJoin.METHOD.run(input, out, settings.fallback());
      return new Ran(false);
    }
    try (table) {
      OpenAddressingHashJoin.ProbeBlocks blocks = new OpenAddressingHashJoin.ProbeBlocks(input.left());
      int workers = Math.min(settings.threads(), Math.max(1, blocks.count() / BLOCKS_PER_THREAD));
      if (workers == 1) {
        probe(input, out, table, blocks);
      } else {
        out.inParallel(workers, mine -> probe(input, mine, table, blocks));
      }
    }
    return new Ran(true);
  }

  /** Probes the left input's blocks that {@code blocks} hands this thread. */
  private static void probe(JoinInput input, JoinOutput out, DenseKeyTable table,
      OpenAddressingHashJoin.ProbeBlocks blocks) {
    KeyColumns left = input.left();
    RowMatcher matcher = new RowMatcher(input, out);
    boolean reportsNulls = input.type().reportsUnmatched();
    long[] keys = new long[ProbeBlock.ROWS];
    int[] rows = new int[ProbeBlock.ROWS];
    for (int b = blocks.claim(); b >= 0; b = blocks.claim()) {
      ExecutionControl.checkpoint();
      int batch = blocks.batch(b);
      int from = blocks.from(b);
      int to = Math.min(from + ProbeBlock.ROWS, left.batchRows(batch));
      int keyed = left.readKeys(batch, from, to, keys, rows);
      for (int i = 0; i < keyed; i++) {
        long entry = table.entryOf(keys[i]);
        if (entry != 0) {
          matcher.offer(rows[i], OpenAddressingTable.firstRow(entry));
        }
        matcher.finish(rows[i]);
      }
      if (keyed < to - from && reportsNulls) { // the rows readKeys skipped have a null key: unmatched
        int next = left.batchStart(batch) + from;
        for (int i = 0; i <= keyed; i++) {
          int until = i < keyed ? rows[i] : left.batchStart(batch) + to;
          for (; next < until; next++) {
            out.emit(next, JoinIndex.NO_ROW);
          }
          next = until + 1;
        }
      }
    }
  }
}
