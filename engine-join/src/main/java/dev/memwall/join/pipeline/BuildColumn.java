package dev.memwall.join.pipeline;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;

/**
 * One output column of a pipelined join's build side, gathered by (batch, row) into a
 * {@link ScratchBatch}: fixed-width values are copied, strings become codes into one
 * {@link VarCharColumn} for the whole build side (its dictionary, when every batch shares one: a
 * dictionary-encoded column of a scanned table, or of a collected one, which keeps small
 * dictionaries encoded; else the column's batches concatenated once, here).
 *
 * <p>Ownership: a concatenated string column is owned and freed by {@link #close}. Thread safety:
 * immutable after construction; gathers from several threads may run at once.
 */
final class BuildColumn implements AutoCloseable {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

  private enum Kind { INT32, INT64, FLOAT64, OTHER_INTEGRAL, DICTIONARY_CODES, STRING_ROWS }

  private final String name;
  private final ColumnType type;
  private final Kind kind;
  private final Column[] columns;
  private final MemorySegment[] data;
  private final VarCharColumn strings;
  private final VarCharVector owned;

  private BuildColumn(String name, ColumnType type, Kind kind, Column[] columns, VarCharColumn strings,
      VarCharVector owned) {
    this.name = name;
    this.type = type;
    this.kind = kind;
    this.columns = columns;
    this.strings = strings;
    this.owned = owned;
    this.data = new MemorySegment[columns.length];
    for (int b = 0; b < columns.length; b++) {
      data[b] = switch (columns[b]) {
        case Int32Column ints when kind == Kind.INT32 -> ints.data();
        case Int64Column longs when kind == Kind.INT64 -> longs.data();
        default -> null;
      };
    }
  }

  /**
   * The column {@code name} of {@code build}, prepared for gathers.
   *
   * @throws IllegalArgumentException naming the column when the build side has none of that name
   */
  static BuildColumn of(Table build, String name, BufferAllocator allocator) {
    int index = build.columnIndex(name);
    ColumnType type = ColumnType.of(build.schema().getFields().get(index));
    List<Batch> batches = build.batches();
    Column[] columns = new Column[batches.size()];
    for (int b = 0; b < columns.length; b++) {
      columns[b] = batches.get(b).column(index);
    }
    if (type.kind() == ColumnType.Kind.STRING) {
      VarCharColumn shared = sharedDictionary(columns);
      if (shared != null) {
        return new BuildColumn(name, type, Kind.DICTIONARY_CODES, columns, shared, null);
      }
      if (columns.length == 1 && columns[0] instanceof VarCharColumn only) {
        return new BuildColumn(name, type, Kind.STRING_ROWS, columns, only, null);
      }
      VarCharVector concatenated = concatenate(name, columns, allocator);
      return new BuildColumn(name, type, Kind.STRING_ROWS, columns, new VarCharColumn(concatenated), concatenated);
    }
    Kind kind = switch (type.kind()) {
      case INT32, DATE -> allOf(columns, Int32Column.class) ? Kind.INT32 : Kind.OTHER_INTEGRAL;
      case INT64, DECIMAL, TIMESTAMP -> allOf(columns, Int64Column.class) ? Kind.INT64 : Kind.OTHER_INTEGRAL;
      case BOOLEAN -> Kind.OTHER_INTEGRAL;
      case FLOAT64 -> Kind.FLOAT64;
      case STRING -> throw new AssertionError();
    };
    return new BuildColumn(name, type, kind, columns, null, null);
  }

  private static boolean allOf(Column[] columns, Class<? extends Column> kind) {
    for (Column column : columns) {
      if (!kind.isInstance(column)) {
        return false;
      }
    }
    return true;
  }

  /** The dictionary every batch's column codes into, or null when they are not all codes into one. */
  private static VarCharColumn sharedDictionary(Column[] columns) {
    VarCharColumn shared = null;
    for (Column column : columns) {
      if (!(column instanceof DictionaryColumn codes)
          || (shared != null && codes.dictionary().arrow() != shared.arrow())) {
        return null;
      }
      shared = codes.dictionary();
    }
    return shared;
  }

  /** One string vector with every batch's rows (dictionary codes decoded), in global row order. */
  private static VarCharVector concatenate(String name, Column[] columns, BufferAllocator allocator) {
    VarCharVector vector = new VarCharVector(name, allocator);
    try {
      int rows = 0;
      long bytes = 0;
      for (Column column : columns) {
        rows += column.length();
        for (int r = 0; r < column.length(); r++) {
          bytes += column.isNull(r) ? 0 : source(column, r).byteLength(code(column, r));
        }
      }
      vector.allocateNew(Math.max(1, bytes), Math.max(1, rows));
      int at = 0;
      for (Column column : columns) {
        for (int r = 0; r < column.length(); r++, at++) {
          if (column.isNull(r)) {
            vector.setNull(at);
          } else {
            VarCharColumn values = source(column, r);
            int code = code(column, r);
            vector.set(at, values.offset(code), values.byteLength(code), values.arrow().getDataBuffer());
          }
        }
      }
      vector.setValueCount(rows);
      return vector;
    } catch (RuntimeException | Error e) {
      vector.close();
      throw e;
    }
  }

  private static VarCharColumn source(Column column, int row) {
    return column instanceof DictionaryColumn codes ? codes.dictionary() : (VarCharColumn) column;
  }

  private static int code(Column column, int row) {
    return column instanceof DictionaryColumn codes ? codes.code(row) : row;
  }

  String name() {
    return name;
  }

  ColumnType type() {
    return type;
  }

  /** The strings the codes of a STRING column index. */
  VarCharColumn strings() {
    return strings;
  }

  /**
   * Writes the value of build row ({@code batches[i]}, {@code rows[i]}) to row {@code i} of column
   * {@code c} of {@code out}, for {@code i < count}; a batch of -1 (no partner) or a null value
   * becomes null. Strings are written as codes into {@link #strings()}: the row's global id
   * {@code globals[i]}, or its dictionary code.
   */
  void gather(int[] batches, int[] rows, int[] globals, int count, ScratchBatch out, int c) {
    MemorySegment target = out.values(c);
    out.clearNulls(c, count);
    switch (kind) {
      case INT32 -> {
        for (int i = 0; i < count; i++) {
          if (present(batches[i], rows[i], out, c, i)) {
            target.setAtIndex(INT, i, data[batches[i]].getAtIndex(INT, rows[i]));
          }
        }
      }
      case INT64 -> {
        for (int i = 0; i < count; i++) {
          if (present(batches[i], rows[i], out, c, i)) {
            target.setAtIndex(LONG, i, data[batches[i]].getAtIndex(LONG, rows[i]));
          }
        }
      }
      case FLOAT64 -> {
        for (int i = 0; i < count; i++) {
          if (present(batches[i], rows[i], out, c, i)) {
            target.setAtIndex(DOUBLE, i, columns[batches[i]].getDouble(rows[i]));
          }
        }
      }
      case OTHER_INTEGRAL -> {
        int width = type.valueBytes();
        for (int i = 0; i < count; i++) {
          if (present(batches[i], rows[i], out, c, i)) {
            TableBuilder.setIntegral(target, width, i, columns[batches[i]].getLong(rows[i]));
          }
        }
      }
      case DICTIONARY_CODES -> {
        for (int i = 0; i < count; i++) {
          if (present(batches[i], rows[i], out, c, i)) {
            target.setAtIndex(INT, i, ((DictionaryColumn) columns[batches[i]]).code(rows[i]));
          }
        }
      }
      case STRING_ROWS -> {
        for (int i = 0; i < count; i++) {
          if (present(batches[i], rows[i], out, c, i)) {
            target.setAtIndex(INT, i, globals[i]);
          }
        }
      }
    }
  }

  /** Whether build row ({@code batch}, {@code row}) has a value; otherwise marks row {@code i} of the output null. */
  private boolean present(int batch, int row, ScratchBatch out, int c, int i) {
    if (batch < 0 || columns[batch].isNull(row)) {
      out.setNull(c, i);
      return false;
    }
    return true;
  }

  @Override
  public void close() {
    if (owned != null) {
      owned.close();
    }
  }
}
