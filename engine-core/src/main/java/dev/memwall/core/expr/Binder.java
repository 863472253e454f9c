package dev.memwall.core.expr;

import dev.memwall.core.expr.Expr.ArithmeticOp;
import dev.memwall.core.expr.Expr.ComparisonOp;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.ColumnType.Kind;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Type-checks {@link Expr} trees against a schema and compiles them into vectorized kernels.
 *
 * <p>Identical subtrees (by {@code equals}) bound by one binder share one kernel, so a
 * subexpression used twice, such as {@code price * (1 - discount)} in TPC-H Q1, is computed once
 * per chunk. Comparisons of a column with a constant, and conjunctions of them on one column
 * (BETWEEN), compile to a single branch-free range test on the column's memory.
 *
 * <p>Implicit promotions (everything else is asked for with {@link Expr#cast}, whose conversions
 * {@link Casts} lists):
 * <ul>
 *   <li>Integers: INT32 and INT64 compute as int64 (an INT32 is widened; arithmetic on integers is
 *       INT64). Integer and decimal arithmetic is exact: overflow throws {@link ArithmeticException}.
 *   <li>Integers and decimals: an integer is a DECIMAL of scale 0. {@code +} and {@code -} align both
 *       sides to the larger scale, {@code *} adds the scales (at most 18), comparisons align the
 *       scales without rounding (an INT32 column against {@code decimal("2.5")} compares exactly).
 *   <li>Doubles: {@code /}, and arithmetic or a comparison with a FLOAT64 on either side, compute in
 *       double; an integer or decimal operand becomes the double nearest its value (exact up to
 *       2^53 units).
 *   <li>DATE: DATE plus or minus an integer (days) is a DATE, DATE minus DATE is INT64 days; dates
 *       compare with dates only.
 *   <li>TIMESTAMP: compares with TIMESTAMP only, the units aligned exactly (no rounding, no
 *       overflow: a seconds column against a nanosecond constant far in the future is simply less);
 *       zoned ones (instants) with zoned ones, in any zone, and ones without a zone with ones
 *       without. No arithmetic; {@code EXTRACT(YEAR)} reads a zoned timestamp's year in its zone.
 *   <li>BOOLEAN: a predicate of its own ({@code filter(col("flag"))}), compares with BOOLEAN only;
 *       no arithmetic.
 *   <li>STRING: compares with string constants (and LIKE, IN, SUBSTRING); no arithmetic.
 *   <li>CASE: the branches' common type by the rules above (INT64, then DECIMAL of the larger scale,
 *       then FLOAT64); a DATE, TIMESTAMP (the finer unit), BOOLEAN or STRING branch only with its own
 *       kind.
 * </ul>
 *
 * <p>Bad input: unknown columns, columns of Arrow types memwall does not read, type mismatches
 * (comparing a string with a number or a date with a timestamp, LIKE on a number, arithmetic on a
 * boolean, a number used as a predicate), casts memwall does not do and decimal scales above 18
 * throw {@link IllegalArgumentException} naming the expression.
 *
 * <p>Thread safety: none. Bind once per worker thread; the kernels carry per-thread scratch state.
 */
public final class Binder {
  private final Map<String, Integer> indexByName = new HashMap<>();
  /** Per column, its type, or null when memwall does not read its Arrow type (see {@link #unreadable}). */
  private final List<ColumnType> columnTypes = new ArrayList<>();
  /** Per column, why memwall does not read it, or null. */
  private final List<String> unreadable = new ArrayList<>();
  /**
   * The kernels bound so far by expression, shared by every parent in one scope: each CASE binds its
   * condition and branches in a scope of their own ({@link #isolated}).
   */
  private Map<Object, Object> kernels = new HashMap<>();
  private final Schema schema;

  /**
   * A binder over {@code schema}'s columns. A column of an Arrow type memwall does not read is no
   * obstacle until an expression names it.
   */
  public Binder(Schema schema) {
    this.schema = schema;
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      indexByName.put(fields.get(i).getName(), i);
      ColumnType type = null;
      String problem = null;
      try {
        type = ColumnType.of(fields.get(i));
      } catch (IllegalArgumentException e) {
        problem = e.getMessage();
      }
      columnTypes.add(type);
      unreadable.add(problem);
    }
  }

  /** The schema of the columns this binder binds over (the chunks' batches'). */
  public Schema schema() {
    return schema;
  }

  /**
   * Index of the column {@code ref} names.
   *
   * @throws IllegalArgumentException listing the input's columns when there is none of that name, or
   *     saying why it was {@linkplain Table#leftOut left out} of the file the input was read from
   */
  public int columnIndex(Expr.ColumnRef ref) {
    Integer index = indexByName.get(ref.name());
    if (index == null) {
      String leftOut = Table.leftOut(schema, ref.name());
      throw new IllegalArgumentException(leftOut != null ? leftOut
          : "unknown column '" + ref.name() + "'; the input has " + indexByName.keySet());
    }
    return index;
  }

  /**
   * The type of a value expression.
   *
   * @throws IllegalArgumentException for boolean expressions and type errors
   */
  public ColumnType typeOf(Expr expr) {
    return switch (expr) {
      case Expr.ColumnRef ref -> columnType(ref);
      case Expr.Literal literal -> literal.type();
      case Expr.ExtractYear year -> {
        Kind kind = typeOf(year.date()).kind();
        if (kind != Kind.DATE && kind != Kind.TIMESTAMP) {
          throw new IllegalArgumentException("EXTRACT(YEAR ...) needs a DATE or a TIMESTAMP, not " + year.date());
        }
        yield ColumnType.INT64;
      }
      case Expr.Cast cast -> Casts.check(typeOf(cast.input()), cast);
      case Expr.Substring sub -> {
        stringColumn(sub.input(), "SUBSTRING");
        yield ColumnType.STRING;
      }
      case Expr.Arithmetic arithmetic -> arithmeticType(arithmetic);
      case Expr.Case c -> commonType(typeOf(c.then()), typeOf(c.otherwise()), c);
      case Expr.Comparison c -> throw booleanAsValue(expr);
      case Expr.And c -> throw booleanAsValue(expr);
      case Expr.Or c -> throw booleanAsValue(expr);
      case Expr.Not c -> throw booleanAsValue(expr);
      case Expr.Like c -> throw booleanAsValue(expr);
      case Expr.IsNull c -> throw booleanAsValue(expr);
      case Expr.InList c -> throw booleanAsValue(expr);
    };
  }

  /**
   * The type of column {@code ref}.
   *
   * @throws IllegalArgumentException naming the column when there is none of that name, or its
   *     Arrow type is one memwall does not read
   */
  private ColumnType columnType(Expr.ColumnRef ref) {
    int index = columnIndex(ref);
    ColumnType type = columnTypes.get(index);
    if (type == null) {
      throw new IllegalArgumentException(unreadable.get(index));
    }
    return type;
  }

  /** Compiles an integral (INT32, INT64, DATE, DECIMAL, BOOLEAN, TIMESTAMP) expression. */
  public LongKernel bindLong(Expr expr) {
    LongKernel cached = (LongKernel) kernels.get(expr);
    if (cached != null) {
      return cached;
    }
    ColumnType type = typeOf(expr);
    if (!type.isIntegral()) {
      throw new IllegalArgumentException(expr + " is " + type + ", not an integral value");
    }
    LongKernel kernel = switch (expr) {
      case Expr.ColumnRef ref -> new LongKernels.ColumnValues(columnIndex(ref), type);
      case Expr.Literal literal -> new LongKernels.Constant((Long) literal.value(), type);
      case Expr.ExtractYear year -> new LongKernels.ExtractYear(days(year.date(), "EXTRACT(YEAR FROM ...)"));
      case Expr.Cast cast -> Casts.bind(bindLong(cast.input()), typeOf(cast.input()), cast);
      case Expr.Arithmetic a when a.op() == ArithmeticOp.MUL ->
          new LongKernels.Arithmetic(ArithmeticOp.MUL, bindLong(a.left()), 1, bindLong(a.right()), 1, type);
      case Expr.Arithmetic a -> new LongKernels.Arithmetic(a.op(),
          bindLong(a.left()), rescaleFactor(typeOf(a.left()), type),
          bindLong(a.right()), rescaleFactor(typeOf(a.right()), type), type);
      case Expr.Case c -> isolated(() -> new LongKernels.Case(bindFilter(c.condition()),
          rescaled(c.then(), type), rescaled(c.otherwise(), type), type));
      default -> throw new IllegalArgumentException("cannot compute " + expr + " as an integral value");
    };
    kernels.put(expr, kernel);
    return kernel;
  }

  /** Compiles a numeric expression as FLOAT64 (integral ones are converted, decimals scaled). */
  public DoubleKernel bindDouble(Expr expr) {
    Object cached = kernels.get(new AsDouble(expr));
    if (cached != null) {
      return (DoubleKernel) cached;
    }
    ColumnType type = typeOf(expr);
    DoubleKernel kernel;
    if (type.isIntegral() && !type.isNumber()) {
      throw new IllegalArgumentException(expr + " is " + type + ", not a number");
    } else if (type.isIntegral()) {
      kernel = new DoubleKernels.FromLong(bindLong(expr));
    } else if (type.kind() != Kind.FLOAT64) {
      throw new IllegalArgumentException(expr + " is " + type + ", not a number");
    } else {
      kernel = switch (expr) {
        case Expr.ColumnRef ref -> new DoubleKernels.ColumnValues(columnIndex(ref));
        case Expr.Literal literal -> new DoubleKernels.Constant((Double) literal.value());
        case Expr.Arithmetic a -> new DoubleKernels.Arithmetic(a.op(), bindDouble(a.left()), bindDouble(a.right()));
        case Expr.Case c -> isolated(() -> new DoubleKernels.Case(bindFilter(c.condition()), bindDouble(c.then()),
            bindDouble(c.otherwise())));
        case Expr.Cast c -> typeOf(c.input()).kind() == Kind.FLOAT64 ? bindDouble(c.input())
            : new DoubleKernels.FromLong(bindLong(c.input()));
        default -> throw new IllegalArgumentException("cannot compute " + expr + " as a double");
      };
    }
    kernels.put(new AsDouble(expr), kernel);
    return kernel;
  }

  /**
   * What {@code bind} binds, with kernels of its own, shared with no kernel outside: a CASE evaluates
   * its branches on the chunk narrowed to their rows, which leaves a kernel it computes there with
   * values and null flags for those rows only, while a parent outside may already hold that kernel's
   * arrays for every row (a projection of {@code amt} beside {@code CASE WHEN a > 0 THEN amt ELSE 0
   * END} would lose {@code amt}'s nulls).
   */
  private <T> T isolated(java.util.function.Supplier<T> bind) {
    Map<Object, Object> outer = kernels;
    kernels = new HashMap<>();
    try {
      return bind.get();
    } finally {
      kernels = outer;
    }
  }

  /**
   * Compiles a boolean expression into a filter: a comparison, a logical connective, LIKE, IN, IS
   * NULL, or a BOOLEAN value (a column, a constant, a CASE of them), which is TRUE where it is true.
   */
  public FilterKernel bindFilter(Expr expr) {
    return switch (expr) {
      case Expr.And and -> bindConjunction(and.operands());
      case Expr.Or or -> new FilterKernels.Any(or.operands().stream().map(this::bindFilter).toList());
      case Expr.Not not -> new FilterKernels.Negation(bindFilter(not.operand()));
      case Expr.Like like -> stringMatch(like.input(), "LIKE", StringPredicate.like(like.pattern()));
      case Expr.InList in -> bindIn(in);
      case Expr.IsNull test -> new FilterKernels.NullTest(columnIndex(nullTestColumn(test)));
      case Expr.Comparison c -> bindComparison(c);
      default -> {
        if (typeOf(expr).kind() != Kind.BOOLEAN) {
          throw new IllegalArgumentException(expr + " is " + typeOf(expr) + ", not a boolean expression");
        }
        yield expr instanceof Expr.ColumnRef ref ? new FilterKernels.ColumnRange(columnIndex(ref), 1, 1)
            : new FilterKernels.LongComparison(ComparisonOp.EQ, bindLong(expr), 1,
                new LongKernels.Constant(1, ColumnType.BOOLEAN), 1);
      }
    };
  }

  private FilterKernel bindConjunction(List<Expr> operands) {
    Map<Integer, long[]> ranges = new LinkedHashMap<>();
    List<FilterKernel> others = new ArrayList<>();
    for (Expr operand : operands) {
      ColumnRange range = operand instanceof Expr.Comparison c ? columnRange(c) : null;
      if (range == null) {
        others.add(bindFilter(operand));
      } else {
        ranges.merge(range.column, new long[] {range.low, range.high},
            (a, b) -> new long[] {Math.max(a[0], b[0]), Math.min(a[1], b[1])});
      }
    }
    List<FilterKernel> all = new ArrayList<>();
    ranges.forEach((column, bounds) -> all.add(new FilterKernels.ColumnRange(column, bounds[0], bounds[1])));
    all.addAll(others);
    return all.size() == 1 ? all.getFirst() : new FilterKernels.All(all);
  }

  private FilterKernel bindIn(Expr.InList in) {
    if (typeOf(in.input()).kind() == Kind.STRING) {
      List<String> values = in.values().stream().map(v -> requireString(v, in)).toList();
      return stringMatch(in.input(), "IN", StringPredicate.in(values));
    }
    return new FilterKernels.Any(in.values().stream()
        .map(v -> bindComparison(new Expr.Comparison(ComparisonOp.EQ, in.input(), v))).toList());
  }

  private FilterKernel bindComparison(Expr.Comparison c) {
    ColumnType left = typeOf(c.left());
    ColumnType right = typeOf(c.right());
    if (left.kind() == Kind.STRING || right.kind() == Kind.STRING) {
      return bindStringComparison(c, left, right);
    }
    requireComparable(left, right, c);
    ColumnRange range = columnRange(c);
    if (range != null) {
      return new FilterKernels.ColumnRange(range.column, range.low, range.high);
    }
    if (left.isIntegral() && right.isIntegral()) {
      if (c.left() instanceof Expr.ColumnRef l && c.right() instanceof Expr.ColumnRef r && isInt32(left)
          && isInt32(right)) {
        return new FilterKernels.Int32ColumnComparison(c.op(), columnIndex(l), columnIndex(r));
      }
      int scale = Math.max(left.scale(), right.scale());
      return new FilterKernels.LongComparison(c.op(), bindLong(c.left()), pow10(scale - left.scale()),
          bindLong(c.right()), pow10(scale - right.scale()));
    }
    return new FilterKernels.DoubleComparison(c.op(), bindDouble(c.left()), bindDouble(c.right()));
  }

  private FilterKernel bindStringComparison(Expr.Comparison c, ColumnType left, ColumnType right) {
    if (left.kind() != Kind.STRING || right.kind() != Kind.STRING) {
      throw new IllegalArgumentException("cannot compare " + left + " with " + right + " in " + c);
    }
    Expr column = c.left();
    Expr constant = c.right();
    ComparisonOp op = c.op();
    if (c.left() instanceof Expr.Literal) {
      column = c.right();
      constant = c.left();
      op = flip(op);
    }
    String value = requireString(constant, c);
    ComparisonOp finalOp = op;
    StringPredicate predicate = op == ComparisonOp.EQ ? StringPredicate.equalTo(value)
        : StringPredicate.compareTo(value, cmp -> FilterKernels.accepts(finalOp, cmp));
    return stringMatch(column, "comparison", predicate);
  }

  /** A comparison of an integral column with a constant as an inclusive range, or null. */
  private ColumnRange columnRange(Expr.Comparison c) {
    Expr.ColumnRef column;
    Expr.Literal literal;
    ComparisonOp op = c.op();
    if (c.left() instanceof Expr.ColumnRef ref && c.right() instanceof Expr.Literal lit) {
      column = ref;
      literal = lit;
    } else if (c.right() instanceof Expr.ColumnRef ref && c.left() instanceof Expr.Literal lit) {
      column = ref;
      literal = lit;
      op = flip(op);
    } else {
      return null;
    }
    ColumnType columnType = typeOf(column);
    if (!columnType.isIntegral() || !literal.type().isIntegral() || op == ComparisonOp.NE) {
      return null;
    }
    requireComparable(columnType, literal.type(), c);
    long value = (Long) literal.value();
    int shift = columnType.scale() - literal.type().scale();
    long floor;
    long ceil;
    int index = columnIndex(column);
    if (shift > 0 && (value > Long.MAX_VALUE / pow10(shift) || value < -(Long.MAX_VALUE / pow10(shift)))) {
      // The constant at the column's scale is beyond int64: above every value, or below every one.
      boolean aboveAll = value > 0;
      boolean holdsEverywhere = switch (op) {
        case LT, LE -> aboveAll;
        case GT, GE -> !aboveAll;
        default -> false;
      };
      return holdsEverywhere ? new ColumnRange(index, Long.MIN_VALUE, Long.MAX_VALUE) : ColumnRange.empty(index);
    } else if (shift >= 0) {
      floor = ceil = value * pow10(shift);
    } else {
      long divisor = pow10(-shift);
      floor = Math.floorDiv(value, divisor);
      ceil = -Math.floorDiv(-value, divisor);
    }
    return switch (op) {
      case EQ -> floor == ceil ? new ColumnRange(index, floor, floor) : ColumnRange.empty(index);
      case LT -> ceil == Long.MIN_VALUE ? ColumnRange.empty(index) : new ColumnRange(index, Long.MIN_VALUE, ceil - 1);
      case LE -> new ColumnRange(index, Long.MIN_VALUE, floor);
      case GT -> floor == Long.MAX_VALUE ? ColumnRange.empty(index) : new ColumnRange(index, floor + 1, Long.MAX_VALUE);
      case GE -> new ColumnRange(index, ceil, Long.MAX_VALUE);
      case NE -> throw new AssertionError("NE is not a range");
    };
  }

  private record ColumnRange(int column, long low, long high) {
    static ColumnRange empty(int column) {
      return new ColumnRange(column, 1, 0);
    }
  }

  /** Key for the double view of an expression in the kernel cache. */
  private record AsDouble(Expr expr) {}

  private LongKernel rescaled(Expr expr, ColumnType target) {
    long factor = rescaleFactor(typeOf(expr), target);
    LongKernel kernel = bindLong(expr);
    return factor == 1 ? kernel
        : new LongKernels.Arithmetic(ArithmeticOp.MUL, kernel, 1, new LongKernels.Constant(factor, ColumnType.INT64), 1, target);
  }

  private ColumnType arithmeticType(Expr.Arithmetic a) {
    ColumnType left = typeOf(a.left());
    ColumnType right = typeOf(a.right());
    for (Kind refused : new Kind[] {Kind.STRING, Kind.BOOLEAN, Kind.TIMESTAMP}) {
      if (left.kind() == refused || right.kind() == refused) {
        String hint = switch (refused) {
          case BOOLEAN -> "; cast them to INT32 (0 and 1) first";
          case TIMESTAMP -> "; cast them to DATE first, or compare them";
          default -> "";
        };
        throw new IllegalArgumentException("arithmetic on " + refused + " values is not supported: " + a + hint);
      }
    }
    if (left.kind() == Kind.DATE || right.kind() == Kind.DATE) {
      boolean dateMinusDate = a.op() == ArithmeticOp.SUB && left.kind() == Kind.DATE && right.kind() == Kind.DATE;
      if (dateMinusDate) {
        return ColumnType.INT64;
      }
      ColumnType other = left.kind() == Kind.DATE ? right : left;
      boolean dayOffset = (other.kind() == Kind.INT32 || other.kind() == Kind.INT64)
          && (a.op() == ArithmeticOp.ADD || (a.op() == ArithmeticOp.SUB && left.kind() == Kind.DATE));
      if (!dayOffset) {
        throw new IllegalArgumentException("unsupported date arithmetic: " + a);
      }
      return ColumnType.DATE;
    }
    if (a.op() == ArithmeticOp.DIV || left.kind() == Kind.FLOAT64 || right.kind() == Kind.FLOAT64) {
      return ColumnType.FLOAT64;
    }
    boolean decimal = left.kind() == Kind.DECIMAL || right.kind() == Kind.DECIMAL;
    int scale = a.op() == ArithmeticOp.MUL ? left.scale() + right.scale() : Math.max(left.scale(), right.scale());
    if (scale > 18) {
      throw new IllegalArgumentException("decimal scale " + scale + " exceeds 18 in " + a);
    }
    return decimal ? ColumnType.decimal(scale) : ColumnType.INT64;
  }

  private ColumnType commonType(ColumnType a, ColumnType b, Expr where) {
    if (a.equals(b)) {
      return a;
    }
    if (a.kind() == Kind.TIMESTAMP && b.kind() == Kind.TIMESTAMP && (a.zone() == null) == (b.zone() == null)) {
      return new ColumnType(Kind.TIMESTAMP, Math.max(a.scale(), b.scale()), a.zone()); // zoned: the same instants
    }
    if (!a.isNumber() || !b.isNumber()) {
      throw new IllegalArgumentException("branches of " + where + " have incompatible types " + a + " and " + b);
    }
    if (a.kind() == Kind.FLOAT64 || b.kind() == Kind.FLOAT64) {
      return ColumnType.FLOAT64;
    }
    int scale = Math.max(a.scale(), b.scale());
    return a.kind() == Kind.DECIMAL || b.kind() == Kind.DECIMAL ? ColumnType.decimal(scale) : ColumnType.INT64;
  }

  private static Expr.ColumnRef nullTestColumn(Expr.IsNull test) {
    if (test.input() instanceof Expr.ColumnRef ref) {
      return ref;
    }
    throw new IllegalArgumentException("IS NULL needs a column, not " + test.input());
  }

  /** A test of {@code predicate} on a string column or a substring of one. */
  private FilterKernel stringMatch(Expr input, String what, StringPredicate predicate) {
    if (input instanceof Expr.Substring sub) {
      return stringMatch(sub.input(), what, StringPredicate.onSubstring(sub, predicate));
    }
    return new FilterKernels.StringMatch(stringColumn(input, what), predicate);
  }

  private int stringColumn(Expr expr, String what) {
    if (!(expr instanceof Expr.ColumnRef ref) || typeOf(ref).kind() != Kind.STRING) {
      throw new IllegalArgumentException(what + " needs a string column, not " + expr);
    }
    return columnIndex(ref);
  }

  private static String requireString(Expr expr, Expr where) {
    if (expr instanceof Expr.Literal literal && literal.value() instanceof String s) {
      return s;
    }
    throw new IllegalArgumentException("expected a string constant, not " + expr + " in " + where);
  }

  /** The days of a DATE expression, or of a TIMESTAMP's wall-clock time (in its zone, if any). */
  private LongKernel days(Expr dateOrTimestamp, String where) {
    ColumnType type = typeOf(dateOrTimestamp);
    return type.kind() == Kind.TIMESTAMP ? new CastKernels.TimestampToDate(bindLong(dateOrTimestamp), type, where)
        : bindLong(dateOrTimestamp);
  }

  /** Whether values of this type are 4-byte integers in memory (INT32 and DATE columns). */
  private static boolean isInt32(ColumnType type) {
    return type.kind() == Kind.INT32 || type.kind() == Kind.DATE;
  }

  /**
   * Checks that values of {@code a} and {@code b} compare: numbers with numbers, and dates, zoned
   * timestamps, timestamps without a zone, booleans and strings each with their own kind.
   */
  private static void requireComparable(ColumnType a, ColumnType b, Expr where) {
    if (!comparisonDomain(a).equals(comparisonDomain(b))) {
      throw new IllegalArgumentException("cannot compare " + a + " with " + b + " in " + where
          + "; cast one side to the other's type");
    }
  }

  private static String comparisonDomain(ColumnType type) {
    return type.isNumber() ? "number"
        : type.kind() == Kind.TIMESTAMP && type.zone() != null ? "instant" : type.kind().name();
  }

  private static long rescaleFactor(ColumnType from, ColumnType to) {
    return to.kind() == Kind.DATE || from.kind() == Kind.DATE ? 1 : pow10(to.scale() - from.scale());
  }

  private static ComparisonOp flip(ComparisonOp op) {
    return switch (op) {
      case LT -> ComparisonOp.GT;
      case LE -> ComparisonOp.GE;
      case GT -> ComparisonOp.LT;
      case GE -> ComparisonOp.LE;
      default -> op;
    };
  }

  static long pow10(int exponent) {
    if (exponent < 0 || exponent > 18) {
      throw new IllegalArgumentException("scale difference out of range: " + exponent);
    }
    long result = 1;
    for (int i = 0; i < exponent; i++) {
      result *= 10;
    }
    return result;
  }

  private static IllegalArgumentException booleanAsValue(Expr expr) {
    return new IllegalArgumentException("boolean expression used as a value: " + expr);
  }
}
