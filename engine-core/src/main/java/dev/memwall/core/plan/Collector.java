package dev.memwall.core.plan;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.DoubleKernel;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.DictionaryEncoder;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Materializes projected values of the selected rows. A string column that is dictionary-encoded
 * where the pipeline ends is collected as codes ({@link TableBuilder}'s encoded columns): the
 * codes of a small dictionary are copied as they are, those of another dictionary met later
 * translated; a chunk whose dictionary would make the column's dictionary large starts a new part
 * in which that column is decoded. {@link TableBuilder#concatenate} makes one table of the parts.
 *
 * <p>Ownership: the collector owns its parts until closed (the caller concatenates them, which
 * empties them). Thread safety: one per worker.
 */
final class Collector implements AutoCloseable {
  private final List<String> names;
  private final List<ColumnType> types;
  private final boolean[] encoded;
  private final BufferAllocator allocator;
  private final int batchRows;
  /** Earlier parts of this worker's rows, before a column had to be decoded. */
  private final List<TableBuilder> finished = new ArrayList<>();
  private TableBuilder builder;
  private final Object[] kernels;
  private final Object[] values;

  /**
   * @param columns what to collect: column references, their SUBSTRINGs, or computed expressions,
   *     bound with {@code binder} over {@code schema}
   * @param allocator where the rows' batches are allocated
   * @param batchRows rows per batch ({@link TableBuilder#batchRows})
   */
  Collector(Binder binder, Schema schema, List<NamedExpr> columns, BufferAllocator allocator, int batchRows) {
    this.types = columns.stream().map(c -> binder.typeOf(c.expr())).toList();
    this.names = columns.stream().map(NamedExpr::name).toList();
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.kernels = new Object[columns.size()];
    this.values = new Object[columns.size()];
    this.encoded = new boolean[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      Expr expr = columns.get(i).expr();
      kernels[i] = switch (types.get(i).kind()) {
        case STRING -> expr instanceof Expr.Substring sub
            ? new SubstringOutput(binder.columnIndex(requireColumn(sub.input())), sub)
            : binder.columnIndex(requireColumn(expr));
        case FLOAT64 -> binder.bindDouble(expr);
        default -> binder.bindLong(expr);
      };
      encoded[i] = kernels[i] instanceof Integer index && schema.getFields().get(index).getDictionary() != null;
    }
    this.builder = new TableBuilder(names, types, encoded, allocator).batchRows(batchRows);
  }

  /** The builders of this worker's rows, in order; the caller concatenates them, this collector closes them. */
  /** Rows collected so far. */
  long rows() {
    long rows = builder.rowCount();
    for (TableBuilder part : finished) {
      rows += part.rowCount();
    }
    return rows;
  }

  /**
   * Hands this collector's parts (its rows so far, in order) to the caller, who concatenates and
   * closes them, and goes on in a new, empty part.
   */
  List<TableBuilder> takeParts() {
    List<TableBuilder> parts = parts();
    finished.clear();
    builder = new TableBuilder(names, types, encoded, allocator).batchRows(batchRows);
    return parts;
  }

  List<TableBuilder> parts() {
    List<TableBuilder> parts = new ArrayList<>(finished);
    parts.add(builder);
    return parts;
  }

  void consume(Chunk chunk) {
    for (int c = 0; c < kernels.length; c++) {
      values[c] = switch (kernels[c]) {
        case LongKernel k -> k.evaluate(chunk);
        case DoubleKernel k -> k.evaluate(chunk);
        case SubstringOutput sub -> chunk.batch().column(sub.column());
        default -> chunk.batch().column((Integer) kernels[c]);
      };
    }
    for (int c = 0; c < kernels.length; c++) {
      if (encoded[c] && !(values[c] instanceof DictionaryColumn codes
          && builder.encoder(c).accepts(codes.dictionary(), DictionaryEncoder.MAX_ENTRIES))) {
        encoded[c] = false; // a large dictionary: this column is decoded from here on, in a new part
        finished.add(builder);
        builder = new TableBuilder(names, types, encoded, allocator).batchRows(batchRows);
        c = -1; // the new part's encoders adopt this chunk's dictionaries afresh
      }
    }
    int selected = chunk.selected();
    for (int done = 0; done < selected; ) {
      int rows = builder.reserveRows(selected - done);
      int at = builder.nextRow();
      for (int c = 0; c < kernels.length; c++) {
        write(builder.vector(c), c, chunk, done, rows, at);
      }
      builder.commitRows(rows);
      done += rows;
    }
  }

  @Override
  public void close() {
    finished.forEach(TableBuilder::close);
    builder.close();
  }

  /** Column {@code c}'s values of selected rows {@code [from, from + rows)}, written from {@code at} on. */
  private void write(FieldVector target, int c, Chunk chunk, int from, int rows, int at) {
    switch (kernels[c]) {
      case LongKernel kernel -> {
        long[] longs = (long[]) values[c];
        boolean[] nulls = kernel.anyNull() ? kernel.nulls() : null;
        switch (target) {
          case BigIntVector v -> {
            for (int i = 0; i < rows; i++) {
              int k = chunk.position(from + i);
              if (nulls != null && nulls[k]) {
                v.setNull(at + i);
              } else {
                v.set(at + i, longs[k]);
              }
            }
          }
          case IntVector _, DateDayVector _ -> {
            BaseFixedWidthVector v = (BaseFixedWidthVector) target;
            for (int i = 0; i < rows; i++) {
              int k = chunk.position(from + i);
              if (nulls != null && nulls[k]) {
                v.setNull(at + i);
              } else {
                TableBuilder.setInt32(v, at + i, Math.toIntExact(longs[k]));
              }
            }
          }
          case BaseFixedWidthVector v -> { // timestamps (8 bytes) and booleans (bits)
            MemorySegment data = ArrowSegments.of(v.getDataBuffer());
            int width = TableBuilder.valueBytes(v);
            TableBuilder.setNonNull(v, at, rows);
            for (int i = 0; i < rows; i++) {
              int k = chunk.position(from + i);
              if (nulls != null && nulls[k]) {
                v.setNull(at + i);
              } else {
                TableBuilder.setIntegral(data, width, at + i, longs[k]);
              }
            }
          }
          default -> throw new IllegalStateException("no integral output into " + target.getField());
        }
      }
      case DoubleKernel kernel -> {
        double[] doubles = (double[]) values[c];
        boolean[] nulls = kernel.anyNull() ? kernel.nulls() : null;
        Float8Vector v = (Float8Vector) target;
        for (int i = 0; i < rows; i++) {
          int k = chunk.position(from + i);
          if (nulls != null && nulls[k]) {
            v.setNull(at + i);
          } else {
            v.set(at + i, doubles[k]);
          }
        }
      }
      case SubstringOutput sub -> {
        Column strings = (Column) values[c];
        VarCharVector v = (VarCharVector) target;
        for (int i = 0; i < rows; i++) {
          sub.copy(strings, chunk.start() + chunk.position(from + i), v, at + i);
        }
      }
      default -> {
        if (encoded[c]) {
          writeCodes((DictionaryColumn) values[c], builder.encoder(c), (IntVector) target, chunk, from, rows, at);
        } else {
          Column strings = (Column) values[c];
          VarCharVector v = (VarCharVector) target;
          for (int i = 0; i < rows; i++) {
            TableBuilder.copyString(strings, chunk.start() + chunk.position(from + i), v, at + i);
          }
        }
      }
    }
  }

  /** Codes of {@code codes}' selected rows {@code [from, from + rows)} as codes of {@code encoder}, from {@code at} on. */
  private static void writeCodes(DictionaryColumn codes, DictionaryEncoder encoder, IntVector target, Chunk chunk,
      int from, int rows, int at) {
    int start = chunk.start();
    boolean anyNull = codes.hasNulls();
    VarCharColumn dictionary = codes.dictionary();
    if (encoder.copiesCodesOf(dictionary)) {
      for (int i = 0; i < rows; i++) {
        int row = start + chunk.position(from + i);
        if (anyNull && codes.isNull(row)) {
          target.setNull(at + i);
        } else {
          TableBuilder.setInt32(target, at + i, codes.code(row));
        }
      }
      return;
    }
    for (int i = 0; i < rows; i++) {
      int row = start + chunk.position(from + i);
      int code = anyNull && codes.isNull(row) ? -1 : encoder.code(dictionary, codes.code(row));
      if (code < 0) {
        target.setNull(at + i);
      } else {
        TableBuilder.setInt32(target, at + i, code);
      }
    }
  }

  /** A projected SUBSTRING of string column {@code column}. */
  private record SubstringOutput(int column, Expr.Substring substring) {
    /** Writes the substring of {@code source}'s row {@code row} (null stays null) to {@code target[index]}. */
    void copy(Column source, int row, VarCharVector target, int index) {
      if (source.isNull(row)) {
        target.setNull(index);
        return;
      }
      VarCharColumn strings;
      int entry;
      if (source instanceof DictionaryColumn codes) {
        strings = codes.dictionary();
        entry = codes.code(row);
      } else {
        strings = (VarCharColumn) source;
        entry = row;
      }
      int offset = strings.offset(entry);
      long range = substring.byteRange(strings.bytes(), offset, strings.byteLength(entry));
      target.setSafe(index, offset + (int) (range >>> 32), (int) range, strings.arrow().getDataBuffer());
    }
  }

  private static Expr.ColumnRef requireColumn(Expr expr) {
    if (expr instanceof Expr.ColumnRef ref) {
      return ref;
    }
    throw new IllegalArgumentException("string outputs must be columns or their SUBSTRINGs, not " + expr);
  }
}
