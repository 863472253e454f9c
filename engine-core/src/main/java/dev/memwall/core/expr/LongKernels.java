package dev.memwall.core.expr;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.LocalDate;

/** The integral kernels the {@link Binder} compiles expressions into. */
final class LongKernels {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  private LongKernels() {}

  /** Reads an INT32, DATE, INT64 or DECIMAL column (or a dictionary column's codes). */
  static final class ColumnValues extends LongKernel {
    private final int columnIndex;
    private final int[] narrow = new int[Chunk.CAPACITY];

    ColumnValues(int columnIndex, ColumnType type) {
      super(type);
      this.columnIndex = columnIndex;
    }

    @Override
    protected void compute(Chunk chunk) {
      Column column = chunk.batch().column(columnIndex);
      int start = chunk.start();
      int selected = chunk.selected();
      long[] out = values;
      if (column instanceof Int64Column longs) {
        MemorySegment data = longs.data();
        if (chunk.readsWhole()) {
          MemorySegment.copy(data, LONG, (long) start << 3, out, 0, chunk.count());
        } else {
          int[] sel = chunk.selection();
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            out[k] = data.getAtIndex(LONG, start + k);
          }
        }
      } else if (column instanceof Int32Column ints) {
        MemorySegment data = ints.data();
        if (chunk.readsWhole()) {
          int count = chunk.count();
          int[] narrow = this.narrow;
          MemorySegment.copy(data, INT, (long) start << 2, narrow, 0, count); // a bulk copy, then a widening loop
          for (int k = 0; k < count; k++) {
            out[k] = narrow[k];
          }
        } else {
          int[] sel = chunk.selection();
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            out[k] = data.getAtIndex(INT, start + k);
          }
        }
      } else {
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          out[k] = column.getLong(start + k);
        }
      }
      readNulls(chunk, column);
    }
  }

  /** A constant: the vector is filled once. */
  static final class Constant extends LongKernel {
    Constant(long value, ColumnType type) {
      super(type);
      java.util.Arrays.fill(values, value);
    }

    @Override
    protected void compute(Chunk chunk) {}
  }

  /**
   * {@code left * leftFactor op right * rightFactor}: the factors align decimal scales for
   * addition and subtraction (1 where no rescaling is needed).
   */
  static final class Arithmetic extends LongKernel {
    private final Expr.ArithmeticOp op;
    private final LongKernel left;
    private final LongKernel right;
    private final long leftFactor;
    private final long rightFactor;

    Arithmetic(Expr.ArithmeticOp op, LongKernel left, long leftFactor, LongKernel right, long rightFactor,
        ColumnType type) {
      super(type);
      if (op == Expr.ArithmeticOp.DIV) {
        throw new IllegalArgumentException("integral division yields a double; bind it as such");
      }
      this.op = op;
      this.left = left;
      this.right = right;
      this.leftFactor = leftFactor;
      this.rightFactor = rightFactor;
    }

    @Override
    protected void compute(Chunk chunk) {
      long[] l = left.evaluate(chunk);
      long[] r = right.evaluate(chunk);
      if (chunk.computeAll()) {
        try {
          computeRange(l, r, chunk.count());
        } catch (ArithmeticException overflowOnSomeRow) {
          // Possibly on a filtered-out row: recompute only the selected rows, which throws if one of them overflows.
          computeSelected(l, r, chunk);
        }
      } else {
        computeSelected(l, r, chunk);
      }
      unionNulls(chunk, left, right);
    }

    private void computeRange(long[] l, long[] r, int count) {
      long[] out = values;
      long lf = leftFactor;
      long rf = rightFactor;
      if (fitsUnchecked(l, r, count)) {
        switch (op) {
          case ADD -> {
            for (int k = 0; k < count; k++) {
              out[k] = l[k] * lf + r[k] * rf;
            }
          }
          case SUB -> {
            for (int k = 0; k < count; k++) {
              out[k] = l[k] * lf - r[k] * rf;
            }
          }
          default -> {
            for (int k = 0; k < count; k++) {
              out[k] = l[k] * r[k];
            }
          }
        }
        return;
      }
      switch (op) {
        case ADD -> {
          for (int k = 0; k < count; k++) {
            out[k] = Math.addExact(Math.multiplyExact(l[k], lf), Math.multiplyExact(r[k], rf));
          }
        }
        case SUB -> {
          for (int k = 0; k < count; k++) {
            out[k] = Math.subtractExact(Math.multiplyExact(l[k], lf), Math.multiplyExact(r[k], rf));
          }
        }
        default -> {
          for (int k = 0; k < count; k++) {
            out[k] = Math.multiplyExact(l[k], r[k]);
          }
        }
      }
    }

    /**
     * Whether no operation over the first {@code count} values can overflow (see {@link Magnitude}),
     * so the loops without checks, which compile to SIMD, give the exact result.
     */
    private boolean fitsUnchecked(long[] l, long[] r, int count) {
      int lb = Magnitude.bits(l, count);
      int rb = Magnitude.bits(r, count);
      return op == Expr.ArithmeticOp.MUL
          ? lb + rb <= 62
          : Math.max(lb + Magnitude.bits(leftFactor), rb + Magnitude.bits(rightFactor)) <= 62;
    }

    private void computeSelected(long[] l, long[] r, Chunk chunk) {
      long[] out = values;
      long lf = leftFactor;
      long rf = rightFactor;
      int[] sel = chunk.selection();
      int selected = chunk.selected();
      if (chunk.isDense()) {
        computeRange(l, r, selected);
        return;
      }
      switch (op) {
        case ADD -> {
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            out[k] = Math.addExact(Math.multiplyExact(l[k], lf), Math.multiplyExact(r[k], rf));
          }
        }
        case SUB -> {
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            out[k] = Math.subtractExact(Math.multiplyExact(l[k], lf), Math.multiplyExact(r[k], rf));
          }
        }
        default -> {
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            out[k] = Math.multiplyExact(l[k], r[k]);
          }
        }
      }
    }
  }

  /** {@code EXTRACT(YEAR FROM date)}. */
  static final class ExtractYear extends LongKernel {
    private final LongKernel date;

    ExtractYear(LongKernel date) {
      super(ColumnType.INT64);
      this.date = date;
    }

    @Override
    protected void compute(Chunk chunk) {
      long[] days = date.evaluate(chunk);
      for (int i = 0; i < chunk.selected(); i++) {
        int k = chunk.position(i);
        out(k, LocalDate.ofEpochDay(days[k]).getYear());
      }
      unionNulls(chunk, date, null);
    }

    private void out(int k, long year) {
      values[k] = year;
    }
  }

  /** {@code CASE WHEN condition THEN then ELSE otherwise END} over integral branches. */
  static final class Case extends LongKernel {
    private final CaseSplit split;

    Case(FilterKernel condition, LongKernel then, LongKernel otherwise, ColumnType type) {
      super(type);
      this.split = new CaseSplit(condition, (chunk, rows, n) -> take(then, chunk, rows, n),
          (chunk, rows, n) -> take(otherwise, chunk, rows, n));
    }

    @Override
    protected void compute(Chunk chunk) {
      anyNull = false;
      split.evaluate(chunk);
    }

    private void take(LongKernel branch, Chunk chunk, int[] rows, int n) {
      long[] from = branch.evaluate(chunk);
      for (int i = 0; i < n; i++) {
        int k = rows[i];
        values[k] = from[k];
      }
      copyNulls(branch, rows, n);
    }
  }
}
