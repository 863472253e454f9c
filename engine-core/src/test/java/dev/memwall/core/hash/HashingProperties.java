package dev.memwall.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

class HashingProperties {
  @Property(tries = 500)
  void unmixInvertsMix(@ForAll long key) {
    assertEquals(key, Hashing.unmix64(Hashing.mix64(key)));
    assertEquals(key, Hashing.mix64(Hashing.unmix64(key)));
  }

  @Example
  void typeLimitsAreInvertedToo() {
    for (long key : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1}) {
      assertEquals(key, Hashing.unmix64(Hashing.mix64(key)));
    }
  }

  @Example
  void lowBitsOfConsecutiveKeysAreSpread() {
    // dense keys must not land in a handful of radix clusters: count distinct low-8-bit values
    boolean[] seen = new boolean[256];
    int distinct = 0;
    for (long key = 0; key < 256; key++) {
      int bucket = (int) (Hashing.mix64(key) & 255);
      if (!seen[bucket]) {
        seen[bucket] = true;
        distinct++;
      }
    }
    // 256 balls in 256 bins: about 162 distinct expected; a weak hash would give far fewer
    assertEquals(true, distinct > 140, "distinct low bytes: " + distinct);
  }

  @Property(tries = 200)
  void combineDependsOnOrder(@ForAll long a, @ForAll long b) {
    if (a != b) {
      assertNotEquals(Hashing.combine(Hashing.combine(0, a), b), Hashing.combine(Hashing.combine(0, b), a));
    }
  }
}
