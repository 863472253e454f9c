package dev.memwall.substrait.optimizer;

import dev.memwall.core.hash.Hashing;

/**
 * A HyperLogLog sketch of the number of distinct values among those {@link #add added} (Flajolet
 * et al., with linear counting for small counts): 2^12 one-byte registers, a relative standard
 * error of about 1.6%, whatever the number of values. Values arrive as longs (a string as its
 * hash), which are mixed here, so sequential keys spread as well as random ones.
 *
 * <p>The registers are a 4 KiB heap array, not off-heap memory: the sketch lives only while one
 * column is scanned. Not thread-safe: one scanning thread owns a sketch.
 */
final class HyperLogLog {
  private static final int BITS = 12;
  private static final int REGISTERS = 1 << BITS;
  private static final double ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);

  private final byte[] registers = new byte[REGISTERS];

  /** Counts {@code value}; equal values count once. */
  void add(long value) {
    long hash = Hashing.mix64(value);
    int index = (int) (hash >>> (Long.SIZE - BITS));
    int rank = Long.numberOfLeadingZeros((hash << BITS) | (1L << (BITS - 1))) + 1;
    if (rank > registers[index]) {
      registers[index] = (byte) rank;
    }
  }

  /** The estimated number of distinct values added; 0 when none was. */
  long estimate() {
    double sum = 0;
    int zeros = 0;
    for (byte register : registers) {
      sum += 1.0 / (1L << register);
      if (register == 0) {
        zeros++;
      }
    }
    double raw = ALPHA * REGISTERS * REGISTERS / sum;
    if (raw <= 2.5 * REGISTERS && zeros > 0) {
      return Math.round(REGISTERS * Math.log((double) REGISTERS / zeros));
    }
    return Math.round(raw);
  }
}
