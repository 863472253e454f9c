package dev.memwall.join.reducer;

import dev.memwall.core.bloom.BlockedBloomFilter;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.JoinOutput;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A Bloom-filter semi-join reducer in front of any join (seed 002, section 5.3.1's single filter;
 * a split-block filter, {@link BlockedBloomFilter}, so every key costs one cache line): the build
 * (right) side's keys go into the filter, then every probe (left) row whose key the filter rejects
 * (or whose key is null) is settled at once, reported as unmatched by outer and anti joins and
 * dropped otherwise, and the rows that pass are copied, key columns only, into a reduced table that
 * the join then runs on. {@link #mapping} translates the reduced table's row ids back.
 *
 * <p>The result is exactly the unreduced join's: a rejected key has no partner (no false
 * negatives), and a false positive only costs the join a probe.
 *
 * <p>Ownership: the filter is freed once the reduced table is built; the reduced table and the row
 * map are charged to the memory given and freed by {@link #close}. Thread safety: build on one
 * thread; {@link #originalRow} may then be called from any thread.
 */
public final class BloomReducer implements AutoCloseable {
  /** The filter's false-positive rate. */
  public static final double FALSE_POSITIVE_RATE = 0.01;
  private static final int BLOCK_ROWS = 1024;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /**
   * What the reducer did.
   *
   * @param leftRows probe rows before
   * @param keptRows probe rows the filter passed on to the join
   * @param filterBytes the filter's size
   */
  public record Report(long leftRows, long keptRows, long filterBytes) {}

  private final Table reduced;
  private final OffHeapBuffer rowMap;
  private final MemorySegment rows;
  private final Report report;

  private BloomReducer(Table reduced, OffHeapBuffer rowMap, Report report) {
    this.reduced = reduced;
    this.rowMap = rowMap;
    this.rows = rowMap.segment();
    this.report = report;
  }

  /** Working memory for inputs of these sizes, besides the reduced table's key columns (at most those of the left). */
  public static long bytesFor(long leftRows, long rightRows) {
    return BlockedBloomFilter.bytesFor(Math.max(1, rightRows), FALSE_POSITIVE_RATE) + Math.max(1, leftRows) * 4L
        + HashedTuples.bytesFor(BLOCK_ROWS) + 4L * BLOCK_ROWS;
  }

  /**
   * Reduces {@code left} (whose keys are {@code leftColumns}, named {@code leftKeys}) by the keys of
   * {@code rightColumns}; rows it settles go to {@code out} as the join type says.
   */
  public static BloomReducer reduce(EngineMemory memory, Table left, List<String> leftKeys, KeyColumns leftColumns,
      KeyColumns rightColumns, JoinType type, JoinOutput out) {
    List<ColumnType> types = new ArrayList<>();
    for (String name : leftKeys) {
      types.add(ColumnType.of(left.schema().findField(name)));
    }
    boolean reportsUnmatched = type.reportsUnmatched();
    try (BlockedBloomFilter filter = BlockedBloomFilter.create(memory, Math.max(1, rightColumns.rowCount()),
            FALSE_POSITIVE_RATE);
        HashedTuples block = HashedTuples.allocate(memory, BLOCK_ROWS, Placement.DEFAULT);
        OffHeapBuffer nullRows = memory.allocate(4L * BLOCK_ROWS);
        TableBuilder builder = new TableBuilder(leftKeys, types, memory.arrow())) {
      MemorySegment hashes = block.hashes();
      MemorySegment blockRows = block.rows();
      for (int b = 0; b < rightColumns.batches(); b++) {
        for (int from = 0; from < rightColumns.batchRows(b); from += BLOCK_ROWS) {
          int to = Math.min(from + BLOCK_ROWS, rightColumns.batchRows(b));
          int n = (int) rightColumns.extract(b, from, to, hashes, blockRows, 0, null, 0);
          for (int i = 0; i < n; i++) {
            filter.add(hashes.getAtIndex(HashedTuples.HASH, i));
          }
        }
      }
      OffHeapBuffer map = memory.allocate(Math.max(1, leftColumns.rowCount()) * 4L);
      try {
        MemorySegment rowMap = map.segment();
        int kept = 0;
        for (int b = 0; b < leftColumns.batches(); b++) {
          var batch = left.batches().get(b);
          var columns = leftKeys.stream().map(batch::column).toList();
          int base = leftColumns.batchStart(b);
          for (int from = 0; from < leftColumns.batchRows(b); from += BLOCK_ROWS) {
            int to = Math.min(from + BLOCK_ROWS, leftColumns.batchRows(b));
            long packed = leftColumns.extract(b, from, to, hashes, blockRows, 0, nullRows.segment(), 0);
            int n = (int) packed;
            for (int i = 0; i < n; i++) {
              int row = blockRows.getAtIndex(HashedTuples.ROW, i);
              if (filter.mightContain(hashes.getAtIndex(HashedTuples.HASH, i))) {
                for (var column : columns) {
                  builder.appendFrom(column, row - base);
                }
                builder.endRow();
                rowMap.setAtIndex(INT, kept++, row);
              } else if (reportsUnmatched) {
                out.emit(row, JoinIndex.NO_ROW);
              }
            }
            int nulls = (int) (packed >>> 32);
            for (int i = 0; reportsUnmatched && i < nulls; i++) {
              out.emit(nullRows.segment().getAtIndex(INT, i), JoinIndex.NO_ROW);
            }
          }
        }
        return new BloomReducer(builder.build(), map,
            new Report(leftColumns.rowCount(), kept, filter.byteSize()));
      } catch (RuntimeException | Error e) {
        map.close();
        throw e;
      }
    }
  }

  /** The reduced left input: its key columns, for the rows the filter passed, in their order. */
  public Table table() {
    return reduced;
  }

  /** The left input's row id of row {@code reducedRow} of {@link #table()}. */
  public int originalRow(int reducedRow) {
    return rows.getAtIndex(INT, reducedRow);
  }

  public Report report() {
    return report;
  }

  /**
   * An output for the join over the reduced table that hands every pair on to {@code out} with its
   * left row id translated; its chunks (and forks' chunks) reach {@code out} one at a time.
   */
  public JoinOutput mapping(EngineMemory memory, int chunkPairs, JoinOutput out) {
    return JoinOutput.streaming(memory, chunkPairs, chunk -> {
      for (int i = 0; i < chunk.size(); i++) {
        out.emit(originalRow(chunk.left(i)), chunk.right(i));
      }
    });
  }

  @Override
  public void close() {
    try {
      reduced.close();
    } finally {
      rowMap.close();
    }
  }
}
