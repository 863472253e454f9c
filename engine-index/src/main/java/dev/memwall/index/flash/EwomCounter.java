package dev.memwall.index.flash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The generalized counter of Ross's EWOM paper (DaMoN 2008, sections 2 and 2.1), kept in a region
 * of flash-like memory: a binary base value plus, for every power of two {@code 2^i}, a unary
 * counter of increments and one of decrements, each a run of bits that an update clears one at a
 * time. The value is the base plus the sum over {@code i} of {@code 2^i} times (cleared increment
 * bits minus cleared decrement bits).
 *
 * <p><b>Updates.</b> {@link #add} splits the amount into its binary digits and clears one bit in
 * the unary counter of each digit: only 1-to-0 changes, free in place under the EWOM model. When
 * the counter of digit {@code i} is spent, the paper's fallback applies: the digit is made of two
 * clears of digit {@code i-1}, recursively, while the bits last. Only when the amount cannot be
 * recorded that way is the region rewritten ({@link #add} returns true): the base takes the value,
 * every unary bit is erased to 1. A writer that knows nothing of the value thus pays one rewrite
 * per {@code bitsPerDigit} unit increments (the paper's {@code 1/L}), and none while a background
 * {@link #rewrite} keeps the unary counters empty (the paper's lightly loaded case).
 *
 * <pre>
 * region: [0,8) base (binary, two's complement) | per digit i in 0..digits-1: increment bits, then
 *         decrement bits, each bitsPerDigit bits rounded up to whole longs
 * </pre>
 *
 * <p><b>Ownership and thread safety.</b> The counter is a view of a segment the caller owns and
 * keeps alive; it holds no memory. One thread at a time.
 *
 * <p><b>Bad input.</b> A region too small for the layout, a digit count outside 1..62 or a bit
 * budget below 1: {@link IllegalArgumentException}. An amount whose magnitude does not fit the
 * digits ({@code >= 2^digits}) is recorded by a rewrite; a value that would overflow a long:
 * {@link ArithmeticException}, the counter unchanged.
 */
public final class EwomCounter {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  private final MemorySegment region;
  private final int digits;
  private final int bits;
  private final int words;

  /**
   * A view of {@code region} as a counter of {@code digits} binary digits with {@code bitsPerDigit}
   * unary bits for each direction; call {@link #reset} before the first use of a fresh region.
   */
  public EwomCounter(MemorySegment region, int digits, int bitsPerDigit) {
    Objects.requireNonNull(region, "region");
    if (digits < 1 || digits > 62 || bitsPerDigit < 1) {
      throw new IllegalArgumentException("need 1 .. 62 digits and >= 1 bit per digit, got " + digits + " and "
          + bitsPerDigit);
    }
    this.region = region;
    this.digits = digits;
    this.bits = bitsPerDigit;
    this.words = (bitsPerDigit + 63) / 64;
    if (region.byteSize() < bytes(digits, bitsPerDigit)) {
      throw new IllegalArgumentException("a counter of " + digits + " digits and " + bitsPerDigit
          + " bits per digit takes " + bytes(digits, bitsPerDigit) + " bytes, the region has " + region.byteSize());
    }
  }

  /** Bytes of the region a counter of this shape uses. */
  public static long bytes(int digits, int bitsPerDigit) {
    return Long.BYTES + 2L * digits * ((bitsPerDigit + 63) / 64) * Long.BYTES;
  }

  private long unaryAt(int digit, boolean decrement) {
    return Long.BYTES + ((2L * digit + (decrement ? 1 : 0)) * words) * Long.BYTES;
  }

  /** Bits of digit {@code digit}'s counter in one direction already cleared. */
  private int spent(int digit, boolean decrement) {
    long at = unaryAt(digit, decrement);
    int ones = 0;
    for (int w = 0; w < words; w++) {
      long word = region.get(LONG, at + 8L * w);
      int valid = Math.min(64, bits - 64 * w);
      ones += Long.bitCount(valid == 64 ? word : word & ((1L << valid) - 1));
    }
    return bits - ones;
  }

  private void clearNext(int digit, boolean decrement, int count) {
    long at = unaryAt(digit, decrement);
    int from = spent(digit, decrement);
    for (int b = from; b < from + count; b++) {
      long word = at + 8L * (b >>> 6);
      region.set(LONG, word, region.get(LONG, word) & ~(1L << b));
    }
  }

  /** Sets the base to {@code value} and erases every unary bit (all ones): the page-write step. */
  public void reset(long value) {
    region.set(LONG, 0, value);
    region.asSlice(Long.BYTES, bytes(digits, bits) - Long.BYTES).fill((byte) 0xFF);
  }

  /** The counter's value. */
  public long get() {
    long v = region.get(LONG, 0);
    for (int i = 0; i < digits; i++) {
      v += ((long) spent(i, false) - spent(i, true)) << i;
    }
    return v;
  }

  /**
   * Adds {@code amount} (negative to subtract); true if that needed a rewrite of the region (a
   * 0-to-1 change: a page-write step under the EWOM model), false if it only cleared bits.
   *
   * @throws ArithmeticException if the value would overflow; nothing changes then
   */
  public boolean add(long amount) {
    long target = Math.addExact(get(), amount);
    if (amount == 0) {
      return false;
    }
    boolean decrement = amount < 0;
    long magnitude = Math.abs(amount);
    if (amount == Long.MIN_VALUE || magnitude >= 1L << digits) {
      reset(target);
      return true;
    }
    int[] plan = new int[digits];
    int[] free = new int[digits];
    for (int i = 0; i < digits; i++) {
      free[i] = bits - spent(i, decrement);
    }
    if (!plan(magnitude, plan, free)) {
      reset(target);
      return true;
    }
    for (int i = 0; i < digits; i++) {
      if (plan[i] > 0) {
        clearNext(i, decrement, plan[i]);
      }
    }
    return false;
  }

  /**
   * Spreads {@code magnitude} over the digits' free bits, highest digit first, a spent digit
   * passed down as twice the next lower one (the paper's fallback); false if the bits do not last.
   */
  private boolean plan(long magnitude, int[] plan, int[] free) {
    long carry = 0; // units of the current digit still to record
    for (int i = digits - 1; i >= 0; i--) {
      carry = carry * 2 + ((magnitude >>> i) & 1);
      long take = Math.min(carry, free[i]);
      plan[i] = (int) take;
      carry -= take;
      if (carry > (1L << 40)) {
        return false; // cannot be made of the lower digits' bits in any case
      }
    }
    return carry == 0;
  }

  /**
   * Folds the unary counters into the base and erases them (the paper's background
   * recompute/reset): one page-write step that leaves every unary bit free.
   */
  public void rewrite() {
    reset(get());
  }

  @Override
  public String toString() {
    return "EwomCounter[" + digits + " digits, " + bits + " bits each, value " + get() + "]";
  }
}
