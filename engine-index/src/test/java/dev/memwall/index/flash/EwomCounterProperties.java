package dev.memwall.index.flash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link EwomCounter} against a plain {@code long}: its value after any sequence of additions,
 * that an addition it reports as in place only cleared bits, and the paper's rewrite rate for
 * unit increments.
 */
class EwomCounterProperties {
  @Provide
  Arbitrary<List<Long>> amounts() {
    return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.longs().between(-3, 3)),
        Tuple.of(3, Arbitraries.longs().between(-100_000, 100_000)),
        Tuple.of(1, Arbitraries.of(1L << 40, -(1L << 40), 255L, 256L))).list().ofMaxSize(400);
  }

  @Property(tries = 200)
  void valueMatchesASumAndInPlaceAdditionsOnlyClearBits(@ForAll("amounts") List<Long> amounts,
      @ForAll @IntRange(min = 1, max = 20) int digits, @ForAll @IntRange(min = 1, max = 130) int bits,
      @ForAll long start) {
    long base = start / 4; // room for the additions without overflow
    MemorySegment region = MemorySegment.ofArray(new long[(int) (EwomCounter.bytes(digits, bits) / 8)]);
    EwomCounter c = new EwomCounter(region, digits, bits);
    c.reset(base);
    long model = base;
    for (long a : amounts) {
      long[] before = region.toArray(ValueLayout.JAVA_LONG);
      boolean rewrote = c.add(a);
      model += a;
      assertEquals(model, c.get());
      long[] after = region.toArray(ValueLayout.JAVA_LONG);
      boolean rose = false;
      for (int i = 0; i < before.length; i++) {
        rose |= (~before[i] & after[i]) != 0;
      }
      if (!rewrote) {
        assertFalse(rose, "an addition reported in place turned a 0 bit into a 1");
      }
      if (Math.abs(a) >= 1L << digits) {
        assertTrue(rewrote || a == 0, "an amount past the digits needs a rewrite");
      }
    }
  }

  @Property(tries = 50)
  void unitIncrementsRewriteOncePerBudget(@ForAll @IntRange(min = 1, max = 300) int bits,
      @ForAll @IntRange(min = 0, max = 2000) int n) {
    MemorySegment region = MemorySegment.ofArray(new long[(int) (EwomCounter.bytes(4, bits) / 8)]);
    EwomCounter c = new EwomCounter(region, 4, bits);
    c.reset(0);
    int rewrites = 0;
    for (int i = 0; i < n; i++) {
      rewrites += c.add(1) ? 1 : 0;
    }
    assertEquals(n, c.get());
    assertEquals(n / (bits + 1), rewrites, "one rewrite per " + (bits + 1) + " increments");
  }

  @Example
  void aSpentDigitIsMadeOfTwoOfTheNextLower() {
    MemorySegment region = MemorySegment.ofArray(new long[(int) (EwomCounter.bytes(8, 2) / 8)]);
    EwomCounter c = new EwomCounter(region, 8, 2);
    c.reset(0);
    assertFalse(c.add(32));
    assertFalse(c.add(32)); // digit 5 spent now
    assertFalse(c.add(32)); // two bits of digit 4
    assertEquals(96, c.get());
    c.rewrite();
    assertEquals(96, c.get());
    assertFalse(c.add(-96));
    assertEquals(0, c.get());
  }

  @Example
  void overflowIsRefusedAndLeavesTheValue() {
    MemorySegment region = MemorySegment.ofArray(new long[(int) (EwomCounter.bytes(4, 8) / 8)]);
    EwomCounter c = new EwomCounter(region, 4, 8);
    c.reset(Long.MAX_VALUE - 1);
    assertThrows(ArithmeticException.class, () -> c.add(2));
    assertEquals(Long.MAX_VALUE - 1, c.get());
    assertTrue(c.add(Long.MIN_VALUE)); // its magnitude is past every digit: a rewrite
    assertEquals(-2, c.get());
  }

  @Example
  void badShapesAreRefused() {
    MemorySegment small = MemorySegment.ofArray(new long[2]);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new EwomCounter(small, 4, 8));
    assertTrue(e.getMessage().contains("takes"));
    assertThrows(IllegalArgumentException.class, () -> new EwomCounter(small, 0, 8));
    assertThrows(IllegalArgumentException.class, () -> new EwomCounter(small, 63, 8));
    assertThrows(IllegalArgumentException.class, () -> new EwomCounter(small, 4, 0));
  }
}
