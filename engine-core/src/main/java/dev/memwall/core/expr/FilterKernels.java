package dev.memwall.core.expr;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * The predicate kernels the {@link Binder} compiles boolean expressions into. Their loops are
 * specialized by width and type on purpose: {@link ColumnRange} has one INT32 and one INT64 loop,
 * {@link Int32ColumnComparison} repeats the INT32 one for two columns, {@link DoubleComparison} is
 * {@link LongComparison} for doubles, and the byte-code loops of {@link StringMatch} are
 * {@link #keepPassing}'s with a table lookup: each loop reads one primitive type straight, so it stays
 * monomorphic and C2 vectorizes it.
 */
final class FilterKernels {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  private FilterKernels() {}

  /**
   * {@code low <= column <= high} straight on an INT32/DATE or INT64/DECIMAL column's memory,
   * branch-free: every comparison against a constant and every BETWEEN compiles to this.
   */
  static final class ColumnRange extends FilterKernel {
    private final int columnIndex;
    private final long low;
    private final long high;
    private final byte[] mask = new byte[Chunk.CAPACITY];
    /**
     * The window's values, copied out of the column: C2 vectorizes the test over an array, not over
     * a segment.
     */
    private final int[] intWindow = new int[Chunk.CAPACITY];
    private final long[] longWindow = new long[Chunk.CAPACITY];

    ColumnRange(int columnIndex, long low, long high) {
      this.columnIndex = columnIndex;
      this.low = low;
      this.high = high;
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      Column column = chunk.batch().column(columnIndex);
      int start = chunk.start();
      int[] sel = chunk.selection();
      int selected = chunk.selected();
      long lo = low;
      long width = high - low;
      int flip = wanted ? 0 : 1;
      int n = 0;
      if (low > high) {
        // An empty range: no row is in it, every non-null row is outside it.
        n = wanted ? 0 : chunk.copySelection(sel);
      } else if (column instanceof Int32Column ints) {
        MemorySegment data = ints.data();
        if (chunk.readsWhole()) {
          byte[] pass = mask;
          int count = chunk.count();
          int[] x = intWindow;
          MemorySegment.copy(data, INT, (long) start << 2, x, 0, count);
          for (int k = 0; k < count; k++) {
            pass[k] = (byte) (inRange(x[k] - lo, width) ^ flip);
          }
          n = keepPassing(chunk, pass);
        } else {
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            sel[n] = k;
            n += inRange(data.getAtIndex(INT, start + k) - lo, width) ^ flip;
          }
        }
      } else if (!(column instanceof Int64Column)) {
        // Any other integral column (a caller's Decimal128, say): the generic accessor.
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          sel[n] = k;
          n += inRange(column.getLong(start + k) - lo, width) ^ flip;
        }
      } else {
        MemorySegment data = ((Int64Column) column).data();
        if (chunk.readsWhole()) {
          byte[] pass = mask;
          int count = chunk.count();
          long[] x = longWindow;
          MemorySegment.copy(data, LONG, (long) start << 3, x, 0, count);
          for (int k = 0; k < count; k++) {
            pass[k] = (byte) (inRange(x[k] - lo, width) ^ flip);
          }
          n = keepPassing(chunk, pass);
        } else {
          for (int i = 0; i < selected; i++) {
            int k = sel[i];
            sel[n] = k;
            n += inRange(data.getAtIndex(LONG, start + k) - lo, width) ^ flip;
          }
        }
      }
      chunk.select(sel, n);
      dropNulls(chunk, column);
    }
  }

  /** {@code left * leftFactor op right * rightFactor} over two integral kernels. */
  static final class LongComparison extends FilterKernel {
    private final Expr.ComparisonOp op;
    private final LongKernel left;
    private final long leftFactor;
    private final LongKernel right;
    private final long rightFactor;

    LongComparison(Expr.ComparisonOp op, LongKernel left, long leftFactor, LongKernel right, long rightFactor) {
      this.op = op;
      this.left = left;
      this.leftFactor = leftFactor;
      this.right = right;
      this.rightFactor = rightFactor;
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      long[] l = left.evaluate(chunk);
      long[] r = right.evaluate(chunk);
      boolean nullable = left.anyNull() || right.anyNull();
      int[] sel = chunk.selection();
      int selected = chunk.selected();
      int n = 0;
      for (int i = 0; i < selected; i++) {
        int k = chunk.position(i);
        int cmp = compareScaled(l[k], leftFactor, r[k], rightFactor);
        boolean keep = accepts(op, cmp) == wanted && !(nullable && isNull(left, right, k));
        sel[n] = k;
        n += keep ? 1 : 0;
      }
      chunk.select(sel, n);
    }

    /**
     * {@code a * aFactor} against {@code b * bFactor}, exactly and without overflow, for factors
     * of which one is 1 (the scales were aligned to the larger): with {@code b = q * aFactor + r},
     * {@code a * aFactor} is below {@code b} when {@code a < q} or {@code a == q} and {@code r > 0}.
     */
    static int compareScaled(long a, long aFactor, long b, long bFactor) {
      if (aFactor == bFactor) {
        return Long.compare(a, b);
      }
      if (bFactor != 1) {
        return -compareScaled(b, bFactor, a, aFactor);
      }
      long q = Math.floorDiv(b, aFactor);
      if (a != q) {
        return a < q ? -1 : 1;
      }
      return Math.floorMod(b, aFactor) == 0 ? 0 : -1;
    }

    private static boolean isNull(LongKernel left, LongKernel right, int k) {
      return (left.anyNull() && left.nulls()[k]) || (right.anyNull() && right.nulls()[k]);
    }
  }

  /**
   * {@code left op right} on two INT32 or DATE columns (TPC-H's {@code l_commitdate < l_receiptdate}),
   * branch-free: the signs of the difference pick the bits of the operator's truth table, so one
   * loop serves all six operators; rows with a null on either side are dropped afterwards (the
   * comparison is NULL).
   */
  static final class Int32ColumnComparison extends FilterKernel {
    private final int leftColumn;
    private final int rightColumn;
    /** Bit 0: holds when equal, bit 1: when less, bit 2: when greater. */
    private final int truth;
    private final byte[] mask = new byte[Chunk.CAPACITY];
    /** The window's values, copied out of the columns (see {@link ColumnRange}). */
    private final int[] leftWindow = new int[Chunk.CAPACITY];
    private final int[] rightWindow = new int[Chunk.CAPACITY];

    Int32ColumnComparison(Expr.ComparisonOp op, int leftColumn, int rightColumn) {
      this.leftColumn = leftColumn;
      this.rightColumn = rightColumn;
      this.truth = switch (op) {
        case EQ -> 0b001;
        case NE -> 0b110;
        case LT -> 0b010;
        case LE -> 0b011;
        case GT -> 0b100;
        case GE -> 0b101;
      };
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      Column leftValues = chunk.batch().column(leftColumn);
      Column rightValues = chunk.batch().column(rightColumn);
      int table = wanted ? truth : ~truth & 0b111;
      long whenEqual = table & 1;
      long whenLess = (table >>> 1) & 1;
      long whenGreater = (table >>> 2) & 1;
      int start = chunk.start();
      int[] sel = chunk.selection();
      int selected = chunk.selected();
      int n = 0;
      if (!(leftValues instanceof Int32Column lc) || !(rightValues instanceof Int32Column rc)) {
        // Columns read through a view (int8, int16, date64): the generic accessor.
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          sel[n] = k;
          n += holds(whenEqual, whenLess, whenGreater, leftValues.getLong(start + k), rightValues.getLong(start + k));
        }
        chunk.select(sel, n);
        dropNulls(chunk, leftValues);
        dropNulls(chunk, rightValues);
        return;
      }
      MemorySegment l = lc.data();
      MemorySegment r = rc.data();
      if (chunk.readsWhole()) {
        byte[] pass = mask;
        int count = chunk.count();
        int[] left = leftWindow;
        int[] right = rightWindow;
        MemorySegment.copy(l, INT, (long) start << 2, left, 0, count);
        MemorySegment.copy(r, INT, (long) start << 2, right, 0, count);
        for (int k = 0; k < count; k++) {
          pass[k] = (byte) holds(whenEqual, whenLess, whenGreater, left[k], right[k]);
        }
        n = keepPassing(chunk, pass);
      } else {
        for (int i = 0; i < selected; i++) {
          int k = sel[i];
          sel[n] = k;
          n += holds(whenEqual, whenLess, whenGreater, l.getAtIndex(INT, start + k), r.getAtIndex(INT, start + k));
        }
      }
      chunk.select(sel, n);
      dropNulls(chunk, leftValues);
      dropNulls(chunk, rightValues);
    }

    /**
     * 1 if {@code left op right} holds, else 0; the operator is given by whether it holds when equal,
     * less and greater (each 0 or 1). All in long arithmetic, which C2 vectorizes (a shift by the
     * outcome would not be).
     */
    private static int holds(long whenEqual, long whenLess, long whenGreater, long left, long right) {
      long difference = left - right; // both within int32: no overflow
      long less = difference >>> 63;
      long greater = -difference >>> 63;
      return (int) ((less & whenLess) | (greater & whenGreater) | ((1 ^ (less | greater)) & whenEqual));
    }
  }

  /** {@code left op right} over two double kernels. */
  static final class DoubleComparison extends FilterKernel {
    private final Expr.ComparisonOp op;
    private final DoubleKernel left;
    private final DoubleKernel right;

    DoubleComparison(Expr.ComparisonOp op, DoubleKernel left, DoubleKernel right) {
      this.op = op;
      this.left = left;
      this.right = right;
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      double[] l = left.evaluate(chunk);
      double[] r = right.evaluate(chunk);
      int[] sel = chunk.selection();
      int selected = chunk.selected();
      int n = 0;
      for (int i = 0; i < selected; i++) {
        int k = chunk.position(i);
        boolean isNull = (left.anyNull() && left.nulls()[k]) || (right.anyNull() && right.nulls()[k]);
        // SQL comparison, not Double.compare: NaN compares false, -0.0 equals 0.0.
        boolean holds = switch (op) {
          case EQ -> l[k] == r[k];
          case NE -> l[k] != r[k];
          case LT -> l[k] < r[k];
          case LE -> l[k] <= r[k];
          case GT -> l[k] > r[k];
          case GE -> l[k] >= r[k];
        };
        sel[n] = k;
        n += holds == wanted && !isNull ? 1 : 0;
      }
      chunk.select(sel, n);
    }
  }

  /**
   * A {@link StringPredicate} on a string column. On a dictionary-encoded column the predicate
   * runs once per distinct value that occurs, the first time it occurs, and rows are then filtered
   * by code (a dictionary may be large: a join's output refers to its build side's strings by code).
   * On a plain string column, a LIKE that only looks for pieces ({@link PercentLike}) scans a heap
   * copy of the chunk's selected strings at once ({@link StringWindow}) unless the window declines;
   * other predicates test each string where it lies.
   */
  static final class StringMatch extends FilterKernel {
    private static final byte UNKNOWN = 0;
    private static final byte MATCHES = 1;
    private static final byte FAILS = 2;
    private final int columnIndex;
    private final StringPredicate predicate;
    private FieldVector lastDictionary;
    /** Per code of {@link #lastDictionary}: UNKNOWN until tested, then MATCHES or FAILS. */
    private byte[] outcomes;
    private StringWindow window;

    StringMatch(int columnIndex, StringPredicate predicate) {
      this.columnIndex = columnIndex;
      this.predicate = predicate;
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      Column column = chunk.batch().column(columnIndex);
      int start = chunk.start();
      int[] sel = chunk.selection();
      int selected = chunk.selected();
      int n = 0;
      if (column instanceof DictionaryColumn dictionary && dictionary.codeBytes() == 1 && !dictionary.hasNulls()) {
        n = selectByteCodes(chunk, dictionary, wanted);
      } else if (column instanceof DictionaryColumn dictionary) {
        VarCharColumn values = dictionary.dictionary();
        byte[] known = outcomesFor(values);
        byte want = wanted ? MATCHES : FAILS;
        boolean anyNull = dictionary.hasNulls();
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          if (anyNull && dictionary.isNull(start + k)) {
            continue; // null is neither TRUE nor FALSE; a null row's code is not to be read
          }
          int code = dictionary.code(start + k);
          byte outcome = known[code];
          if (outcome == UNKNOWN) {
            outcome = known[code] = !values.isNull(code)
                && predicate.test(values.bytes(), values.offset(code), values.byteLength(code)) ? MATCHES : FAILS;
          }
          sel[n] = k;
          n += outcome == want ? 1 : 0;
        }
      } else if (predicate instanceof PercentLike like && like.searchesWindows()
          && window().load(chunk, (VarCharColumn) column)) {
        like.test(window);
        boolean[] holds = window.holds();
        for (int i = 0; i < selected; i++) {
          sel[n] = chunk.position(i);
          n += holds[i] == wanted ? 1 : 0;
        }
      } else {
        VarCharColumn strings = (VarCharColumn) column;
        MemorySegment bytes = strings.bytes();
        for (int i = 0; i < selected; i++) {
          int k = chunk.position(i);
          int row = start + k;
          sel[n] = k;
          n += predicate.test(bytes, strings.offset(row), strings.byteLength(row)) == wanted ? 1 : 0;
        }
      }
      chunk.select(sel, n);
      dropNulls(chunk, column);
    }

    /** The heap copy of a chunk's strings that a {@link PercentLike} scans; made when first needed. */
    private StringWindow window() {
      if (window == null) {
        window = new StringWindow();
      }
      return window;
    }

    private byte[] outcomesFor(VarCharColumn dictionary) {
      if (dictionary.arrow() != lastDictionary) {
        outcomes = new byte[dictionary.length()];
        lastDictionary = dictionary.arrow();
        passes = null;
      }
      return outcomes;
    }

    /** For 1-byte codes without nulls (a file's small dictionary): 1 where code & 0xFF is wanted, else 0. */
    private byte[] passes;
    private boolean passesWanted;

    /**
     * The common case of a small dictionary with byte codes and no nulls (TPC-H's flags, modes and
     * segments): the predicate runs once per dictionary entry, then the rows are selected in one
     * branch-free pass over the codes, a table lookup each.
     */
    private int selectByteCodes(Chunk chunk, DictionaryColumn dictionary, boolean wanted) {
      VarCharColumn values = dictionary.dictionary();
      byte[] known = outcomesFor(values);
      if (passes == null || passesWanted != wanted) {
        byte[] table = new byte[256];
        for (int code = 0; code < values.length() && code < 128; code++) {
          if (known[code] == UNKNOWN) {
            known[code] = !values.isNull(code)
                && predicate.test(values.bytes(), values.offset(code), values.byteLength(code)) ? MATCHES : FAILS;
          }
          table[code] = (byte) (known[code] == (wanted ? MATCHES : FAILS) ? 1 : 0);
        }
        passes = table;
        passesWanted = wanted;
      }
      byte[] table = passes;
      MemorySegment codes = dictionary.codes();
      int start = chunk.start();
      int[] sel = chunk.selection();
      int n = 0;
      if (chunk.isDense()) {
        int count = chunk.count();
        for (int k = 0; k < count; k++) {
          sel[n] = k;
          n += table[codes.get(ValueLayout.JAVA_BYTE, start + k) & 0xFF];
        }
      } else {
        int selected = chunk.selected();
        for (int i = 0; i < selected; i++) {
          int k = sel[i];
          sel[n] = k;
          n += table[codes.get(ValueLayout.JAVA_BYTE, start + k) & 0xFF];
        }
      }
      return n;
    }
  }

  /**
   * Writes to the chunk's selection vector the selected positions {@code k} whose {@code pass[k]}
   * is 1 and returns how many there are (the caller then {@link Chunk#select}s them). Testing the
   * whole window into {@code pass} first and compressing after, rather than in one loop, lets C2
   * vectorize the test (the compress stays scalar).
   */
  private static int keepPassing(Chunk chunk, byte[] pass) {
    int[] sel = chunk.selection();
    int n = 0;
    if (chunk.isDense()) {
      int count = chunk.count();
      for (int k = 0; k < count; k++) {
        sel[n] = k;
        n += pass[k];
      }
    } else {
      int selected = chunk.selected();
      for (int i = 0; i < selected; i++) {
        int k = sel[i];
        sel[n] = k;
        n += pass[k];
      }
    }
    return n;
  }

  /**
   * Conjunction. TRUE rows: each operand narrows what the previous left. FALSE rows: those where
   * some operand is FALSE (De Morgan), since FALSE AND NULL is FALSE.
   */
  static final class All extends FilterKernel {
    private final FilterKernel[] operands;
    private final Union union = new Union();

    All(List<FilterKernel> operands) {
      this.operands = operands.toArray(FilterKernel[]::new);
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      if (wanted) {
        narrow(chunk, operands, true);
      } else {
        union.select(chunk, operands, false);
      }
    }
  }

  /**
   * Disjunction. TRUE rows: those where some operand is TRUE. FALSE rows: each operand's FALSE
   * rows narrow what the previous left, since TRUE OR NULL is TRUE and FALSE OR NULL is NULL.
   */
  static final class Any extends FilterKernel {
    private final FilterKernel[] operands;
    private final Union union = new Union();

    Any(List<FilterKernel> operands) {
      this.operands = operands.toArray(FilterKernel[]::new);
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      if (wanted) {
        union.select(chunk, operands, true);
      } else {
        narrow(chunk, operands, false);
      }
    }
  }

  /** Negation: NOT p is TRUE where p is FALSE and FALSE where p is TRUE; NULL stays NULL. */
  static final class Negation extends FilterKernel {
    private final FilterKernel operand;

    Negation(FilterKernel operand) {
      this.operand = operand;
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      operand.select(chunk, !wanted);
    }
  }

  /** {@code column IS NULL}: TRUE for null rows, FALSE for the others, never NULL. */
  static final class NullTest extends FilterKernel {
    private final int columnIndex;

    NullTest(int columnIndex) {
      this.columnIndex = columnIndex;
    }

    @Override
    protected void select(Chunk chunk, boolean wanted) {
      Column column = chunk.batch().column(columnIndex);
      if (!column.hasNulls()) {
        if (wanted) {
          chunk.select(chunk.selection(), 0);
        }
        return;
      }
      int[] sel = chunk.selection();
      int start = chunk.start();
      int selected = chunk.selected();
      int n = 0;
      for (int i = 0; i < selected; i++) {
        int k = chunk.position(i);
        sel[n] = k;
        n += column.isNull(start + k) == wanted ? 1 : 0;
      }
      chunk.select(sel, n);
    }
  }

  /** Keeps the rows where every operand has the value {@code wanted}. */
  private static void narrow(Chunk chunk, FilterKernel[] operands, boolean wanted) {
    for (FilterKernel operand : operands) {
      if (chunk.selected() == 0) {
        return;
      }
      operand.select(chunk, wanted);
    }
  }

  /** Keeps the rows where some operand has a value: each operand is tried on the rows no earlier one took. */
  private static final class Union {
    private final int[] original = new int[Chunk.CAPACITY];
    private final int[] remaining = new int[Chunk.CAPACITY];
    private final boolean[] accepted = new boolean[Chunk.CAPACITY];

    void select(Chunk chunk, FilterKernel[] operands, boolean wanted) {
      int originalCount = chunk.copySelection(original);
      System.arraycopy(original, 0, remaining, 0, originalCount);
      int remainingCount = originalCount;
      for (int i = 0; i < originalCount; i++) {
        accepted[original[i]] = false;
      }
      for (FilterKernel operand : operands) {
        if (remainingCount == 0) {
          break;
        }
        chunk.select(remaining, remainingCount);
        operand.select(chunk, wanted);
        int[] passed = chunk.selection();
        for (int i = 0; i < chunk.selected(); i++) {
          accepted[passed[i]] = true;
        }
        int next = 0;
        for (int i = 0; i < remainingCount; i++) {
          int k = remaining[i];
          remaining[next] = k;
          next += accepted[k] ? 0 : 1;
        }
        remainingCount = next;
      }
      int n = 0;
      for (int i = 0; i < originalCount; i++) {
        int k = original[i];
        original[n] = k;
        n += accepted[k] ? 1 : 0;
      }
      chunk.select(original, n);
    }
  }

  /**
   * 1 when {@code offset <= width} as unsigned numbers, else 0, without a branch (Hacker's
   * Delight's borrow formula for unsigned less-than): a filter that keeps an unpredictable share of
   * rows must not mispredict on every other row.
   */
  static int inRange(long offset, long width) {
    long widthBelowOffset = ((~width & offset) | (~(width ^ offset) & (width - offset))) >>> 63;
    return 1 - (int) widthBelowOffset;
  }

  /** Whether a three-way comparison result satisfies {@code op}. */
  static boolean accepts(Expr.ComparisonOp op, int cmp) {
    return switch (op) {
      case EQ -> cmp == 0;
      case NE -> cmp != 0;
      case LT -> cmp < 0;
      case LE -> cmp <= 0;
      case GT -> cmp > 0;
      case GE -> cmp >= 0;
    };
  }

  private static void dropNulls(Chunk chunk, Column column) {
    if (!column.hasNulls()) {
      return;
    }
    int[] sel = chunk.selection();
    int start = chunk.start();
    int n = 0;
    for (int i = 0; i < chunk.selected(); i++) {
      int k = sel[i];
      sel[n] = k;
      n += column.isNull(start + k) ? 0 : 1;
    }
    chunk.select(sel, n);
  }
}
