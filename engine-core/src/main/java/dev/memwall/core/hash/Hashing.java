package dev.memwall.core.hash;

/**
 * The engine's key hash: the 64-bit finalizer of MurmurHash3 ({@code fmix64}).
 *
 * <p>{@link #mix64} is a <em>bijection</em> on 64-bit values (each step, an xor with a right shift
 * or a multiplication by an odd constant, is invertible; {@link #unmix64} is the inverse). A join
 * over keys that fit 64 bits can therefore store and compare the hash alone: two hashes are equal
 * exactly when the keys are. All 64 output bits depend on every input bit, so any bit range of the
 * hash (the low bits for radix partitioning, the high bits for a hash table slot) is usable.
 *
 * <p>Thread safety: stateless.
 */
public final class Hashing {
  private static final long C1 = 0xff51afd7ed558ccdL;
  private static final long C2 = 0xc4ceb9fe1a85ec53L;
  /** Inverse of {@link #C1} modulo 2^64. */
  private static final long C1_INVERSE = 0x4f74430c22a54005L;
  /** Inverse of {@link #C2} modulo 2^64. */
  private static final long C2_INVERSE = 0x9cb4b2f8129337dbL;

  private Hashing() {}

  /** MurmurHash3's fmix64: a bijective, avalanching mix of {@code key}. */
  public static long mix64(long key) {
    long x = key;
    x ^= x >>> 33;
    x *= C1;
    x ^= x >>> 33;
    x *= C2;
    x ^= x >>> 33;
    return x;
  }

  /** The inverse of {@link #mix64}: {@code unmix64(mix64(k)) == k} for every {@code k}. */
  public static long unmix64(long hash) {
    long x = hash;
    x ^= x >>> 33;
    x *= C2_INVERSE;
    x ^= x >>> 33;
    x *= C1_INVERSE;
    x ^= x >>> 33;
    return x;
  }

  /**
   * Folds {@code value} into the running hash {@code hash} of a composite key. Not a bijection: a
   * join over composite keys wider than 64 bits must confirm hash-equal rows on the key itself.
   */
  public static long combine(long hash, long value) {
    return mix64(hash * 0x9E3779B97F4A7C15L + mix64(value));
  }
}
