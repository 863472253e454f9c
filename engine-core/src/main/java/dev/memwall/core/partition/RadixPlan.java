package dev.memwall.core.partition;

import java.util.Arrays;

/**
 * How to radix-cluster: on the low {@code bits} bits of the hash, in {@code bitsPerPass.length}
 * passes, the first pass taking the most significant of those bits (seed 000, section 3.3: the
 * output is then ordered on the radix bits and cluster boundaries follow from a histogram).
 *
 * <p>Immutable. Bad input (negative bits, more than {@link #MAX_BITS}, passes that do not sum to
 * the bits, a pass of zero bits) gets an {@link IllegalArgumentException} naming it.
 */
public final class RadixPlan {
  /** The most radix bits supported: cluster boundaries are kept in an int array of 2^bits + 1. */
  public static final int MAX_BITS = 26;
  /** The most bits one pass may use (fan-out 65,536): more would thrash any TLB and cache. */
  public static final int MAX_BITS_PER_PASS = 16;

  private final int bits;
  private final int[] bitsPerPass;

  private RadixPlan(int bits, int[] bitsPerPass) {
    this.bits = bits;
    this.bitsPerPass = bitsPerPass;
  }

  /** The plan with exactly these bits per pass, most significant first. */
  public static RadixPlan of(int... bitsPerPass) {
    int total = 0;
    for (int b : bitsPerPass) {
      if (b < 1 || b > MAX_BITS_PER_PASS) {
        throw new IllegalArgumentException("a radix pass needs 1.." + MAX_BITS_PER_PASS + " bits, got "
            + Arrays.toString(bitsPerPass));
      }
      total += b;
    }
    if (total > MAX_BITS) {
      throw new IllegalArgumentException("at most " + MAX_BITS + " radix bits, got " + total);
    }
    return new RadixPlan(total, bitsPerPass.clone());
  }

  /**
   * {@code bits} spread as evenly as possible over {@code passes} passes (the seed found an even
   * split best), the earlier passes taking the odd bit. {@code bits == 0} means no clustering.
   */
  public static RadixPlan even(int bits, int passes) {
    if (bits < 0 || bits > MAX_BITS) {
      throw new IllegalArgumentException("radix bits must be in 0.." + MAX_BITS + ", got " + bits);
    }
    if (bits == 0) {
      return new RadixPlan(0, new int[0]);
    }
    if (passes < 1 || passes > bits) {
      throw new IllegalArgumentException("cannot spread " + bits + " radix bits over " + passes + " passes");
    }
    int[] split = new int[passes];
    for (int p = 0; p < passes; p++) {
      split[p] = bits / passes + (p < bits % passes ? 1 : 0);
    }
    return of(split);
  }

  /**
   * The fewest passes that keep every pass within {@code maxBitsPerPass} bits: the seed's rule
   * that one pass should not open more clusters than there are TLB entries.
   */
  public static RadixPlan bounded(int bits, int maxBitsPerPass) {
    if (maxBitsPerPass < 1) {
      throw new IllegalArgumentException("bits per pass must be >= 1, got " + maxBitsPerPass);
    }
    int limit = Math.min(maxBitsPerPass, MAX_BITS_PER_PASS);
    return even(bits, bits == 0 ? 0 : (bits + limit - 1) / limit);
  }

  /** Total radix bits B; there are 2^B clusters. */
  public int bits() {
    return bits;
  }

  public int passes() {
    return bitsPerPass.length;
  }

  /** Bits of pass {@code pass} (0 = first, most significant). */
  public int bitsOfPass(int pass) {
    return bitsPerPass[pass];
  }

  /** Number of clusters, 2^B. */
  public int clusters() {
    return 1 << bits;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RadixPlan other && Arrays.equals(bitsPerPass, other.bitsPerPass);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bitsPerPass);
  }

  @Override
  public String toString() {
    return "B=" + bits + " P=" + bitsPerPass.length + " " + Arrays.toString(bitsPerPass);
  }
}
