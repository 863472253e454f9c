package dev.memwall.core.partition;

import java.lang.foreign.ValueLayout;

/**
 * Seed 000's 8-byte tuples for a 32-bit key: the key in the low half of a long, a 32-bit row id in
 * the high half, one word per tuple in one stream. Against {@link HashedTuples} (a 64-bit hash and a row
 * id in two streams, 12 bytes), a pass of radix-clustering moves two thirds of the bytes and keeps
 * half as many write positions open, and the key itself is compared, so no hash is stored.
 *
 * <p>Tuples are clustered and bucketed on {@link #hash}: Knuth's multiplicative hash of the key,
 * one multiplication where {@link dev.memwall.core.hash.Hashing#mix64} takes five steps. Its
 * <em>high</em> bits are the well-mixed ones, so clusters take the top bits (most significant
 * first) and a cluster's hash table the bits right below them ({@link #bucketBits}). It is a
 * bijection of the key (an odd multiplier), so keys that collide in a cluster's buckets are told
 * apart by the key alone.
 *
 * <p>Thread safety: stateless.
 */
public final class PackedTuples {
  /** Layout of a tuple. */
  public static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
  /** Bytes a tuple occupies. */
  public static final long BYTES_PER_TUPLE = Long.BYTES;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private PackedTuples() {}

  /** The tuple of {@code key} and {@code row}. */
  public static long pack(int key, int row) {
    return (key & 0xFFFF_FFFFL) | ((long) row << 32);
  }

  public static int key(long tuple) {
    return (int) tuple;
  }

  public static int row(long tuple) {
    return (int) (tuple >>> 32);
  }

  /** The multiplicative hash of {@code key}: its top bits choose the cluster, the next ones the bucket. */
  public static long hash(int key) {
    return (key & 0xFFFF_FFFFL) * GOLDEN;
  }

  /**
   * {@code bits} bits of {@code hash} right below its top {@code skip} bits (which chose the
   * cluster), as an index in {@code [0, 2^bits)}; {@code bits} in 1..63.
   */
  public static int bucketBits(long hash, int skip, int bits) {
    return (int) ((hash << skip) >>> (64 - bits));
  }
}
