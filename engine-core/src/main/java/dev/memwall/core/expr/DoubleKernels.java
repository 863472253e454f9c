package dev.memwall.core.expr;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.Float32Column;
import dev.memwall.core.vector.Float64Column;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;

/**
 * The FLOAT64 kernels the {@link Binder} compiles expressions into. Its column reader, arithmetic and
 * CASE are a specialization of {@link LongKernels}' for doubles: kept apart so that each loop stays
 * monomorphic over a primitive array and vectorizes.
 */
final class DoubleKernels {
  private DoubleKernels() {}

  /** Reads a FLOAT64 column (a float32 one widened as it is read). */
  static final class ColumnValues extends DoubleKernel {
    private final int columnIndex;
    private final float[] floats = new float[Chunk.CAPACITY];

    ColumnValues(int columnIndex) {
      this.columnIndex = columnIndex;
    }

    @Override
    protected void compute(Chunk chunk) {
      Column column = chunk.batch().column(columnIndex);
      if (column instanceof Float32Column narrow) {
        readFloats(narrow, chunk);
      } else {
        readDoubles(((Float64Column) column).data(), chunk);
      }
      readNulls(chunk, column);
    }

    private void readFloats(Float32Column column, Chunk chunk) {
      MemorySegment data = column.data();
      int start = chunk.start();
      if (chunk.readsWhole()) {
        int count = chunk.count();
        float[] window = floats;
        MemorySegment.copy(data, ValueLayout.JAVA_FLOAT_UNALIGNED, (long) start << 2, window, 0, count);
        for (int k = 0; k < count; k++) {
          values[k] = window[k];
        }
      } else {
        int[] sel = chunk.selection();
        for (int i = 0; i < chunk.selected(); i++) {
          int k = sel[i];
          values[k] = data.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, start + k);
        }
      }
    }

    private void readDoubles(MemorySegment data, Chunk chunk) {
      int start = chunk.start();
      int selected = chunk.selected();
      if (chunk.readsWhole()) {
        MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, (long) start << 3, values, 0, chunk.count());
      } else {
        int[] sel = chunk.selection();
        for (int i = 0; i < selected; i++) {
          int k = sel[i];
          values[k] = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, start + k);
        }
      }
    }
  }

  /** A constant. */
  static final class Constant extends DoubleKernel {
    Constant(double value) {
      java.util.Arrays.fill(values, value);
    }

    @Override
    protected void compute(Chunk chunk) {}
  }

  /**
   * An integer or decimal expression read as double: the double nearest {@code value / 10^scale}.
   * Up to 2^53 units both the value and the power of ten are exact doubles, so one IEEE division
   * rounds correctly; beyond that the exact decimal is rounded through {@link BigDecimal}.
   */
  static final class FromLong extends DoubleKernel {
    private static final long EXACT = 1L << 53;
    private final LongKernel input;
    private final int scale;
    private final double divisor;

    FromLong(LongKernel input) {
      this.input = input;
      this.scale = input.type().scale();
      this.divisor = Binder.pow10(scale);
    }

    @Override
    protected void compute(Chunk chunk) {
      long[] in = input.evaluate(chunk);
      int selected = chunk.selected();
      if (scale == 0) {
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          values[k] = in[k]; // the conversion rounds to nearest
        }
      } else {
        double d = divisor;
        boolean beyond = false;
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          long v = in[k];
          values[k] = v / d;
          beyond |= (v > EXACT) | (v < -EXACT);
        }
        if (beyond) { // rare: values of more than 15 or 16 digits
          for (int i = 0; i < selected; i++) {
            int k = chunk.position(i);
            long v = in[k];
            if (v > EXACT || v < -EXACT) {
              values[k] = BigDecimal.valueOf(v, scale).doubleValue();
            }
          }
        }
      }
      anyNull = input.anyNull();
      if (anyNull) {
        System.arraycopy(input.nulls(), 0, nulls, 0, Chunk.CAPACITY);
      }
    }
  }

  /** {@code left op right} in double arithmetic. */
  static final class Arithmetic extends DoubleKernel {
    private final Expr.ArithmeticOp op;
    private final DoubleKernel left;
    private final DoubleKernel right;

    Arithmetic(Expr.ArithmeticOp op, DoubleKernel left, DoubleKernel right) {
      this.op = op;
      this.left = left;
      this.right = right;
    }

    @Override
    protected void compute(Chunk chunk) {
      double[] l = left.evaluate(chunk);
      double[] r = right.evaluate(chunk);
      int selected = chunk.selected();
      for (int i = 0; i < selected; i++) {
        int k = chunk.position(i);
        values[k] = switch (op) {
          case ADD -> l[k] + r[k];
          case SUB -> l[k] - r[k];
          case MUL -> l[k] * r[k];
          case DIV -> l[k] / r[k];
        };
      }
      unionNulls(chunk, left, right);
    }
  }

  /** {@code CASE WHEN condition THEN then ELSE otherwise END} over double branches. */
  static final class Case extends DoubleKernel {
    private final CaseSplit split;

    Case(FilterKernel condition, DoubleKernel then, DoubleKernel otherwise) {
      this.split = new CaseSplit(condition, (chunk, rows, n) -> take(then, chunk, rows, n),
          (chunk, rows, n) -> take(otherwise, chunk, rows, n));
    }

    @Override
    protected void compute(Chunk chunk) {
      anyNull = false;
      split.evaluate(chunk);
    }

    private void take(DoubleKernel branch, Chunk chunk, int[] rows, int n) {
      double[] from = branch.evaluate(chunk);
      for (int i = 0; i < n; i++) {
        int k = rows[i];
        values[k] = from[k];
      }
      copyNulls(branch, rows, n);
    }
  }
}
