package dev.memwall.core.output;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.DoubleKernel;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.Float8Vector;

/**
 * A FLOAT64 output: its kernel's values. A contract as {@link OutputColumn}'s; its loops are a type
 * specialization of {@link IntegralOutput}'s, on purpose (see there).
 */
final class DoubleOutput implements OutputColumn {
  private final DoubleKernel kernel;
  private double[] values;

  DoubleOutput(DoubleKernel kernel) {
    this.kernel = kernel;
  }

  @Override
  public ColumnType type() {
    return ColumnType.FLOAT64;
  }

  @Override
  public void evaluate(Chunk chunk) {
    values = kernel.evaluate(chunk);
  }

  @Override
  public void writeSelected(Chunk chunk, int from, int rows, TableBuilder builder, int column, int at) {
    double[] doubles = values;
    boolean[] nulls = kernel.anyNull() ? kernel.nulls() : null;
    if (!(builder.vector(column) instanceof Float8Vector v)) {
      throw new IllegalStateException("no FLOAT64 output into " + builder.vector(column).getField());
    }
    for (int i = 0; i < rows; i++) {
      int k = chunk.position(from + i);
      if (nulls != null && nulls[k]) {
        v.setNull(at + i);
      } else {
        v.set(at + i, doubles[k]);
      }
    }
  }

  @Override
  public void writePositions(Chunk chunk, int[] positions, int count, ScratchBatch out, int column,
      VarCharColumn[] dictionaries) {
    double[] doubles = values;
    MemorySegment target = out.values(column);
    out.clearNulls(column, count);
    for (int i = 0; i < count; i++) {
      target.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, doubles[positions[i]]);
    }
    KernelNulls.mark(kernel.anyNull() ? kernel.nulls() : null, positions, count, out, column);
  }
}
