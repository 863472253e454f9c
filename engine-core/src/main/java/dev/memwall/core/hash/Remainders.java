package dev.memwall.core.hash;

/**
 * The remainder of a 32-bit hash code by a divisor fixed in advance (a hash table's size, a
 * partition count), with two multiplications instead of a division: Lemire, Kaser and Kurz's "faster
 * remainder by direct computation", exact for every unsigned 32-bit dividend.
 *
 * <p>The caller computes {@link #reciprocal} once per divisor and passes it with the divisor to
 * {@link #remainder}. Thread safety: stateless.
 */
public final class Remainders {
  private Remainders() {}

  /** The 64-bit reciprocal of a divisor {@code d >= 1} for {@link #remainder}: ceil(2^64 / d), 0 for d = 1. */
  public static long reciprocal(int d) {
    return Long.divideUnsigned(-1L, d) + 1;
  }

  /**
   * {@code Integer.remainderUnsigned(a, d)} for {@code d >= 1}, given {@code reciprocal(d)}: the
   * fraction of {@code a / d} in 64 fixed-point bits, times {@code d}, keeps the remainder in the high
   * word. (For d = 1 the reciprocal wraps to 0, and so does the remainder, as it should.)
   */
  public static int remainder(int a, long reciprocal, int d) {
    long fraction = reciprocal * Integer.toUnsignedLong(a);
    return (int) Math.unsignedMultiplyHigh(fraction, d);
  }
}
