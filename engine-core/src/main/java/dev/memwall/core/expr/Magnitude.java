package dev.memwall.core.expr;

/**
 * How many bits the values of a vector need: {@link #bits} is the least {@code b} with every value
 * in [-2<sup>b</sup>, 2<sup>b</sup>). Kernels that check every operation for overflow use it to
 * prove a whole chunk safe first and then run a loop without checks, which the JIT can compile to
 * SIMD: a product of values of {@code a} and {@code b} bits fits a long when {@code a + b <= 62},
 * a sum of {@code n} values of {@code b} bits when {@code b + log2(n) <= 62}. The reduction itself
 * has no branch and compiles to SIMD too.
 *
 * <p>Thread safety: stateless.
 */
public final class Magnitude {
  private Magnitude() {
  }

  /** The bits the first {@code count} values of {@code values} need (0 when all are 0 or -1, or {@code count} is 0). */
  public static int bits(long[] values, int count) {
    long magnitudes = 0;
    for (int k = 0; k < count; k++) {
      long x = values[k];
      magnitudes |= x ^ (x >> 63);
    }
    return Long.SIZE - Long.numberOfLeadingZeros(magnitudes);
  }

  /** The bits the values of {@code values} at the first {@code n} of {@code positions} need. */
  public static int bits(long[] values, int[] positions, int n) {
    long magnitudes = 0;
    for (int i = 0; i < n; i++) {
      long x = values[positions[i]];
      magnitudes |= x ^ (x >> 63);
    }
    return Long.SIZE - Long.numberOfLeadingZeros(magnitudes);
  }

  /** The bits {@code factor}, a positive constant, needs; 64 (never safe) for zero or a negative factor. */
  public static int bits(long factor) {
    return factor > 0 ? Long.SIZE - Long.numberOfLeadingZeros(factor) : Long.SIZE;
  }
}
