package dev.memwall.core.output;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;

/**
 * An integral output (INT32, INT64, DATE, DECIMAL, TIMESTAMP or BOOLEAN, all as {@code long}): its
 * kernel's values, written 8 or 4 bytes wide or as bits as the target column holds them. A
 * contract as {@link OutputColumn}'s.
 *
 * <p>Its loops and {@link DoubleOutput}'s are alike on purpose: each is a type specialization that
 * reads its kernel's array and writes its vector type directly, where a shared loop would read or
 * write through an interface call per value.
 */
final class IntegralOutput implements OutputColumn {
  private final LongKernel kernel;
  /** How a scratch batch holds the values: 4 bytes (INT32, DATE), a bit (BOOLEAN) or 8 bytes. */
  private final int scratchWidth;
  private long[] values;

  IntegralOutput(LongKernel kernel) {
    this.kernel = kernel;
    ColumnType.Kind kind = kernel.type().kind();
    this.scratchWidth = kind == ColumnType.Kind.INT32 || kind == ColumnType.Kind.DATE ? Integer.BYTES
        : kind == ColumnType.Kind.BOOLEAN ? 0 : Long.BYTES;
  }

  @Override
  public ColumnType type() {
    return kernel.type();
  }

  @Override
  public void evaluate(Chunk chunk) {
    values = kernel.evaluate(chunk);
  }

  @Override
  public void writeSelected(Chunk chunk, int from, int rows, TableBuilder builder, int column, int at) {
    long[] longs = values;
    boolean[] nulls = kernel.anyNull() ? kernel.nulls() : null;
    FieldVector target = builder.vector(column);
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
      case BaseFixedWidthVector v when v instanceof IntVector || v instanceof DateDayVector -> {
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

  @Override
  public void writePositions(Chunk chunk, int[] positions, int count, ScratchBatch out, int column,
      VarCharColumn[] dictionaries) {
    long[] longs = values;
    MemorySegment target = out.values(column);
    out.clearNulls(column, count);
    switch (scratchWidth) {
      case Integer.BYTES -> {
        for (int i = 0; i < count; i++) {
          target.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) longs[positions[i]]);
        }
      }
      case Long.BYTES -> {
        for (int i = 0; i < count; i++) {
          target.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, longs[positions[i]]);
        }
      }
      default -> {
        for (int i = 0; i < count; i++) {
          TableBuilder.setIntegral(target, 0, i, longs[positions[i]]);
        }
      }
    }
    KernelNulls.mark(kernel.anyNull() ? kernel.nulls() : null, positions, count, out, column);
  }
}
