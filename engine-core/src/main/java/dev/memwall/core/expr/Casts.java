package dev.memwall.core.expr;

import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.ColumnType.Kind;

/**
 * The casts {@link Expr.Cast} asks for: which ones memwall does, and the kernels they bind to. All
 * are exact or fail; none wraps around.
 *
 * <table>
 *   <caption>Casts from a type (rows) to another (columns)</caption>
 *   <tr><th>from \ to</th><th>INT32, INT64, DECIMAL</th><th>FLOAT64</th><th>DATE</th><th>TIMESTAMP</th></tr>
 *   <tr><td>INT32, INT64, DECIMAL</td><td>exact when widening; a narrower scale rounds half away
 *       from zero; a result beyond int64 (or INT32) is an {@link ArithmeticException}</td>
 *       <td>the nearest double</td><td>-</td><td>-</td></tr>
 *   <tr><td>BOOLEAN</td><td>0 or 1</td><td>-</td><td>-</td><td>-</td></tr>
 *   <tr><td>FLOAT64</td><td>- (not exact)</td><td>itself</td><td>-</td><td>-</td></tr>
 *   <tr><td>DATE</td><td>-</td><td>-</td><td>itself</td><td>midnight (in the target's zone, if
 *       any)</td></tr>
 *   <tr><td>TIMESTAMP</td><td>-</td><td>-</td><td>the day (in its zone, if any)</td><td>a finer unit
 *       exactly, a coarser one floors; zoned to zoned keeps the instant, zoned to unzoned the
 *       wall-clock time in the source's zone, unzoned to zoned reads the wall-clock time in the
 *       target's zone</td></tr>
 * </table>
 *
 * <p>Every type casts to itself; STRING and BOOLEAN targets take nothing else. A refused cast is an
 * {@link IllegalArgumentException} in one line naming the expression and both types.
 */
final class Casts {
  private Casts() {}

  /**
   * Checks that memwall casts {@code from} to {@code cast.type()}.
   *
   * @return the cast's type
   * @throws IllegalArgumentException naming the cast when it is not one memwall does
   */
  static ColumnType check(ColumnType from, Expr.Cast cast) {
    ColumnType to = cast.type();
    boolean exactNumber = to.kind() == Kind.INT32 || to.kind() == Kind.INT64 || to.kind() == Kind.DECIMAL;
    boolean allowed = from.equals(to)
        || (exactNumber && (from.kind() == Kind.INT32 || from.kind() == Kind.INT64 || from.kind() == Kind.DECIMAL
            || from.kind() == Kind.BOOLEAN))
        || (to.kind() == Kind.FLOAT64 && from.isNumber())
        || ((to.kind() == Kind.DATE || to.kind() == Kind.TIMESTAMP)
            && (from.kind() == Kind.DATE || from.kind() == Kind.TIMESTAMP));
    if (!allowed) {
      throw new IllegalArgumentException("cannot " + describe(cast) + ": its input is " + from + ", and memwall casts "
          + "integers, booleans and decimals to integers and decimals, numbers to FLOAT64, and dates and timestamps "
          + "to dates and timestamps");
    }
    return to;
  }

  /**
   * The kernel of {@code cast} to an integral type, over {@code input} (the kernel of the cast's
   * input, of type {@code from}); {@link #check} passed.
   */
  static LongKernel bind(LongKernel input, ColumnType from, Expr.Cast cast) {
    ColumnType to = cast.type();
    String what = describe(cast);
    if (from.equals(to)) {
      return input;
    }
    return switch (to.kind()) {
      case INT32, INT64, DECIMAL -> new CastKernels.Rescale(input, from, to, what);
      case DATE -> new CastKernels.TimestampToDate(input, from, what);
      case TIMESTAMP -> from.kind() == Kind.DATE ? new CastKernels.DateToTimestamp(input, to, what)
          : new CastKernels.TimestampToTimestamp(input, from, to, what);
      default -> throw new IllegalArgumentException("cannot " + what + " as an integral value");
    };
  }

  /** {@code CAST(l_quantity AS DECIMAL(scale 2))}: the cast as errors name it. */
  static String describe(Expr.Cast cast) {
    return ExprText.of(cast);
  }
}
