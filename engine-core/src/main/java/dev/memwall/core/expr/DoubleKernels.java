package dev.memwall.core.expr;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.Float64Column;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The FLOAT64 kernels the {@link Binder} compiles expressions into. */
final class DoubleKernels {
  private DoubleKernels() {}

  /** Reads a FLOAT64 column. */
  static final class ColumnValues extends DoubleKernel {
    private final int columnIndex;

    ColumnValues(int columnIndex) {
      this.columnIndex = columnIndex;
    }

    @Override
    protected void compute(Chunk chunk) {
      Column column = chunk.batch().column(columnIndex);
      MemorySegment data = ((Float64Column) column).data();
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
      anyNull = false;
      if (column.hasNulls()) {
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          nulls[k] = column.isNull(start + k);
          anyNull |= nulls[k];
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

  /** An integral expression read as double: {@code value / 10^scale}. */
  static final class FromLong extends DoubleKernel {
    private final LongKernel input;
    private final double unit;

    FromLong(LongKernel input) {
      this.input = input;
      this.unit = Math.pow(10, -input.type().scale());
    }

    @Override
    protected void compute(Chunk chunk) {
      long[] in = input.evaluate(chunk);
      for (int i = 0; i < chunk.selected(); i++) {
        int k = chunk.position(i);
        values[k] = in[k] * unit;
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
    private final FilterKernel condition;
    private final DoubleKernel then;
    private final DoubleKernel otherwise;
    private final CaseSplit split = new CaseSplit();
    private final CaseSplit.Branch takeThen;
    private final CaseSplit.Branch takeOtherwise;

    Case(FilterKernel condition, DoubleKernel then, DoubleKernel otherwise) {
      this.condition = condition;
      this.then = then;
      this.otherwise = otherwise;
      this.takeThen = (chunk, rows, n) -> take(then, chunk, rows, n);
      this.takeOtherwise = (chunk, rows, n) -> take(otherwise, chunk, rows, n);
    }

    @Override
    protected void compute(Chunk chunk) {
      anyNull = false;
      split.evaluate(chunk, condition, takeThen, takeOtherwise);
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
