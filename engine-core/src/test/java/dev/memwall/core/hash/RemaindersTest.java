package dev.memwall.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Remainders} against {@link Integer#remainderUnsigned} on edge dividends and divisors and at random. */
class RemaindersTest {
  @Test
  void remainderByMultiplicationEqualsTheDivision() {
    SplittableRandom random = new SplittableRandom(7);
    int[] divisors = {1, 2, 3, 5, 7, 641, 1 << 20 | 1, 8388617, Integer.MAX_VALUE, -1 >>> 1, 2147483629};
    int[] edges = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, -2};
    for (int d : divisors) {
      long r = Remainders.reciprocal(d);
      for (int a : edges) {
        assertEquals(Integer.remainderUnsigned(a, d), Remainders.remainder(a, r, d), a + " mod " + d);
      }
      for (int i = 0; i < 100_000; i++) {
        int a = random.nextInt();
        assertEquals(Integer.remainderUnsigned(a, d), Remainders.remainder(a, r, d), a + " mod " + d);
      }
    }
    for (int i = 0; i < 100_000; i++) {
      int d = 1 + random.nextInt(Integer.MAX_VALUE - 1);
      int a = random.nextInt();
      assertEquals(Integer.remainderUnsigned(a, d), Remainders.remainder(a, Remainders.reciprocal(d), d),
          a + " mod " + d);
    }
  }
}
