package dev.memwall.join;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Float64Column;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.RowLocator;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.PairChunk;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Late materialization of a join's result: gathers the output columns of the rows each chunk of
 * row-id pairs names, column by column, with one typed loop per column, straight into a
 * {@link TableBuilder}'s Arrow batches (bulk appends). The columns of every batch are resolved once,
 * and each row's batch once per chunk. Strings are written as plain Utf8 (dictionary codes decoded),
 * like {@link TableBuilder}. A right row id of {@link JoinIndex#NO_ROW} gives nulls in the right
 * columns. {@link Join#materialize} is a join {@linkplain Join#stream streamed} into one of these;
 * a caller who also wants the {@link JoinReport} streams into one itself:
 *
 * <pre>{@code
 * try (PairGather gather = PairGather.of(left, List.of("k", "v"), right, List.of("w"), memory.arrow())) {
 *   JoinReport report = join.stream(gather::append);
 *   Table rows = gather.build();
 * }
 * }</pre>
 *
 * <p>Ownership: owns its batches (in its builder) until {@link #build} hands them over;
 * {@link #close} frees those not handed over. Thread safety: calls of {@link #append} must not
 * overlap (a join's stream calls its consumer one chunk at a time, from whichever worker thread).
 */
public final class PairGather implements AutoCloseable {
  private final List<String> names = new ArrayList<>();
  private final List<ColumnType> types = new ArrayList<>();
  private final TableBuilder builder;
  private final int leftWidth;
  private final Column[][] leftColumns;
  private final Column[][] rightColumns;
  private final RowLocator leftRows;
  private final RowLocator rightRows;
  private int[] leftBatch = new int[0];
  private int[] leftRow = new int[0];
  private int[] rightBatch = new int[0];
  private int[] rightRow = new int[0];

  /**
   * A gather of the named columns of {@code left}, then of {@code right}, into batches allocated from
   * {@code allocator}; the tables are borrowed and must stay open until {@link #build}.
   *
   * @throws IllegalArgumentException naming a column that is missing or appears twice in the output
   */
  public static PairGather of(Table left, List<String> leftColumns, Table right, List<String> rightColumns,
      BufferAllocator allocator) {
    Set<String> names = new HashSet<>();
    for (String name : leftColumns) {
      left.columnIndex(name);
      if (!names.add(name)) {
        throw new IllegalArgumentException("output column '" + name + "' appears twice");
      }
    }
    for (String name : rightColumns) {
      right.columnIndex(name);
      if (!names.add(name)) {
        throw new IllegalArgumentException("output column '" + name + "' appears twice; "
            + "left and right output columns need distinct names");
      }
    }
    return new PairGather(left, leftColumns, right, rightColumns, allocator);
  }

  private PairGather(Table left, List<String> leftColumns, Table right, List<String> rightColumns,
      BufferAllocator allocator) {
    for (String name : leftColumns) {
      names.add(name);
      types.add(ColumnType.of(left.schema().findField(name)));
    }
    for (String name : rightColumns) {
      names.add(name);
      types.add(ColumnType.of(right.schema().findField(name)));
    }
    this.builder = new TableBuilder(names, types, allocator);
    this.leftWidth = leftColumns.size();
    this.leftColumns = columns(left, leftColumns);
    this.rightColumns = columns(right, rightColumns);
    this.leftRows = RowLocator.of(left.batches());
    this.rightRows = RowLocator.of(right.batches());
  }

  /** {@code [batch][output column]}: the named columns of every batch. */
  private static Column[][] columns(Table table, List<String> names) {
    int[] indexes = names.stream().mapToInt(table::columnIndex).toArray();
    Column[][] columns = new Column[table.batches().size()][indexes.length];
    for (int b = 0; b < columns.length; b++) {
      for (int c = 0; c < indexes.length; c++) {
        columns[b][c] = table.batches().get(b).column(indexes[c]);
      }
    }
    return columns;
  }

  /** Gathers the rows of {@code chunk}'s pairs (a chunk is read only during this call). */
  public void append(PairChunk chunk) {
    int n = chunk.size();
    if (leftBatch.length < n) {
      leftBatch = new int[n];
      leftRow = new int[n];
      rightBatch = new int[n];
      rightRow = new int[n];
    }
    if (leftWidth > 0) {
      locate(chunk, true, leftRows, leftBatch, leftRow, n);
    }
    if (names.size() > leftWidth) {
      locate(chunk, false, rightRows, rightBatch, rightRow, n);
    }
    for (int done = 0; done < n; ) {
      int take = builder.reserveRows(n - done);
      int at = builder.nextRow();
      for (int c = 0; c < names.size(); c++) {
        boolean isLeft = c < leftWidth;
        fill(builder.vector(c), isLeft ? leftColumns : rightColumns, isLeft ? c : c - leftWidth,
            isLeft ? leftBatch : rightBatch, isLeft ? leftRow : rightRow, done, take, at);
      }
      builder.commitRows(take);
      done += take;
    }
  }

  /** Each pair's batch (-1 for {@link JoinIndex#NO_ROW}) and row within it. */
  private static void locate(PairChunk chunk, boolean left, RowLocator rows, int[] batch, int[] row, int n) {
    for (int i = 0; i < n; i++) {
      int global = left ? chunk.left(i) : chunk.right(i);
      if (global == JoinIndex.NO_ROW) {
        batch[i] = -1;
      } else {
        int b = rows.batchOf(global);
        batch[i] = b;
        row[i] = global - rows.start(b);
      }
    }
  }

  /**
   * Writes {@code count} values of output column {@code c} from pairs {@code from...} at rows {@code at...}.
   * The loops per vector type are alike on purpose, a deliberate type specialization: each reads and
   * writes its type directly, where one shared loop would call a writer through an interface per value.
   */
  private static void fill(FieldVector target, Column[][] columns, int c, int[] batch, int[] row, int from, int count,
      int at) {
    switch (target) {
      case IntVector _, DateDayVector _ -> {
        BaseFixedWidthVector v = (BaseFixedWidthVector) target;
        for (int k = 0; k < count; k++) {
          int b = batch[from + k];
          Column source = b < 0 ? null : columns[b][c];
          if (source == null || source.isNull(row[from + k])) {
            v.setNull(at + k);
          } else {
            TableBuilder.setInt32(v, at + k, source instanceof Int32Column ints ? ints.get(row[from + k])
                : Math.toIntExact(source.getLong(row[from + k]))); // int8, int16 and date64 through views
          }
        }
      }
      case BigIntVector v -> {
        for (int k = 0; k < count; k++) {
          int b = batch[from + k];
          Column source = b < 0 ? null : columns[b][c];
          if (source == null || source.isNull(row[from + k])) {
            v.setNull(at + k);
          } else {
            v.set(at + k, source instanceof Int64Column longs ? longs.get(row[from + k]) : source.getLong(row[from + k]));
          }
        }
      }
      case Float8Vector v -> {
        for (int k = 0; k < count; k++) {
          int b = batch[from + k];
          Column source = b < 0 ? null : columns[b][c];
          if (source == null || source.isNull(row[from + k])) {
            v.setNull(at + k);
          } else {
            v.set(at + k, source instanceof Float64Column doubles ? doubles.get(row[from + k])
                : source.getDouble(row[from + k])); // float32 through its view
          }
        }
      }
      case BaseFixedWidthVector v -> { // timestamps and booleans
        for (int k = 0; k < count; k++) {
          int b = batch[from + k];
          Column source = b < 0 ? null : columns[b][c];
          if (source == null || source.isNull(row[from + k])) {
            v.setNull(at + k);
          } else {
            TableBuilder.setIntegral(v, at + k, source.getLong(row[from + k]));
          }
        }
      }
      case VarCharVector v -> {
        for (int k = 0; k < count; k++) {
          int b = batch[from + k];
          if (b < 0) {
            v.setNull(at + k);
          } else {
            TableBuilder.copyString(columns[b][c], row[from + k], v, at + k);
          }
        }
      }
      default -> throw new IllegalStateException("no gather for " + target.getField());
    }
  }

  /** The gathered rows as a table, owned by the caller; the gather holds nothing afterwards. */
  public Table build() {
    return builder.build();
  }

  @Override
  public void close() {
    builder.close();
  }
}
