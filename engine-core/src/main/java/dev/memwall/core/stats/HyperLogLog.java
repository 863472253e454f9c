package dev.memwall.core.stats;

import dev.memwall.core.hash.Hashing;
import java.util.Arrays;

/**
 * A HyperLogLog sketch of the number of distinct values among those {@link #add added} (Flajolet
 * et al., with linear counting for small counts): 2^12 one-byte registers, a relative standard
 * error of about 1.6%, whatever the number of values. Values arrive as longs (a string as its
 * hash), which are mixed here, so sequential keys spread as well as random ones. Two sketches
 * {@link #merge} into the sketch of both inputs' values, exactly as if one sketch had seen them all,
 * which is what lets a data set's parts be sketched apart and counted together.
 *
 * <p>The registers are a 4 KiB heap array, not off-heap memory. Not thread-safe: one thread owns a
 * sketch.
 */
public final class HyperLogLog {
  /** The number of registers, and of bytes in {@link #registers}. */
  public static final int REGISTERS = 1 << 12;
  private static final int BITS = 12;
  /** The largest rank a register can hold: the 52 hash bits below the index, then the sentinel bit. */
  static final int MAX_RANK = Long.SIZE - BITS + 1;
  private static final double ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);

  private final byte[] registers;

  /** An empty sketch. */
  public HyperLogLog() {
    this.registers = new byte[REGISTERS];
  }

  private HyperLogLog(byte[] registers) {
    this.registers = registers;
  }

  /**
   * The sketch whose registers are {@code registers} (as {@link #registers} gave them), copied.
   *
   * @throws IllegalArgumentException when there are not {@link #REGISTERS} of them or one holds a
   *     rank no value can give
   */
  public static HyperLogLog of(byte[] registers) {
    if (registers.length != REGISTERS) {
      throw new IllegalArgumentException("a sketch has " + REGISTERS + " registers, not " + registers.length);
    }
    for (byte register : registers) {
      if (register < 0 || register > MAX_RANK) {
        throw new IllegalArgumentException("a register holds a rank from 0 to " + MAX_RANK + ", not " + register);
      }
    }
    return new HyperLogLog(registers.clone());
  }

  /** Counts {@code value}; equal values count once. */
  public void add(long value) {
    long hash = Hashing.mix64(value);
    int index = (int) (hash >>> (Long.SIZE - BITS));
    int rank = Long.numberOfLeadingZeros((hash << BITS) | (1L << (BITS - 1))) + 1;
    if (rank > registers[index]) {
      registers[index] = (byte) rank;
    }
  }

  /** Adds {@code other}'s values to this sketch's (register by register, the larger rank). */
  public void merge(HyperLogLog other) {
    for (int i = 0; i < REGISTERS; i++) {
      registers[i] = (byte) Math.max(registers[i], other.registers[i]);
    }
  }

  /** A copy of the registers, for storing the sketch; {@link #of} reads them back. */
  public byte[] registers() {
    return registers.clone();
  }

  /** The estimated number of distinct values added; 0 when none was. */
  public long estimate() {
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

  @Override
  public boolean equals(Object other) {
    return other instanceof HyperLogLog o && Arrays.equals(o.registers, registers);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(registers);
  }
}
