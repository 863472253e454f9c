package dev.memwall.index.flash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
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
 * {@link EwomList} against an {@link ArrayList}: the live values after any appends and deletes
 * (duplicates, the all-ones value, deletes of absent values), that appends and deletes only clear
 * bits, and that a rewrite happens exactly when the erased nodes are used up.
 */
class EwomListProperties {
  /** Append {@code value}, or delete {@code value}. */
  record Op(boolean append, long value) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Long> values = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.longs().between(-3, 5)),
        Tuple.of(1, Arbitraries.of(-1L, Long.MIN_VALUE, Long.MAX_VALUE)), Tuple.of(1, Arbitraries.longs()));
    return Arbitraries.frequencyOf(Tuple.of(3, values.map(v -> new Op(true, v))),
        Tuple.of(2, values.map(v -> new Op(false, v)))).list().ofMaxSize(500);
  }

  @Property(tries = 200)
  void matchesAnArrayListAndOnlyClearsBitsBetweenRewrites(@ForAll("ops") List<Op> ops,
      @ForAll @IntRange(min = 1, max = 40) int nodes) {
    MemorySegment region = MemorySegment.ofArray(new long[1 + 2 * nodes]);
    EwomList list = new EwomList(region);
    list.clear();
    List<Long> model = new ArrayList<>();
    int used = 0; // nodes written since the last rewrite, live or deleted
    for (Op op : ops) {
      long[] before = region.toArray(ValueLayout.JAVA_LONG);
      boolean rewrote = false;
      if (op.append()) {
        if (model.size() == nodes) {
          IllegalStateException e = assertThrows(IllegalStateException.class, () -> list.append(op.value()));
          assertTrue(e.getMessage().contains("full of live values"));
          assertArrayEquals(before, region.toArray(ValueLayout.JAVA_LONG), "a refused append changes nothing");
          continue;
        }
        rewrote = list.append(op.value());
        assertEquals(used == nodes, rewrote, "a rewrite exactly when the erased nodes are used up");
        used = rewrote ? model.size() + 1 : used + 1;
        model.add(op.value());
      } else {
        assertEquals(model.remove(op.value()), list.delete(op.value()));
      }
      if (!rewrote) {
        long[] after = region.toArray(ValueLayout.JAVA_LONG);
        for (int i = 0; i < before.length; i++) {
          assertEquals(0, ~before[i] & after[i], "word " + i + " gained a 1 bit without a rewrite");
        }
      }
      assertArrayEquals(model.stream().mapToLong(Long::longValue).toArray(), list.values());
    }
    list.rewrite();
    assertArrayEquals(model.stream().mapToLong(Long::longValue).toArray(), list.values());
  }

  @Example
  void appendsAfterARewriteStartAtTheTailShortcut() {
    MemorySegment region = MemorySegment.ofArray(new long[1 + 2 * 4]);
    EwomList list = new EwomList(region);
    list.clear();
    assertFalse(list.append(1));
    assertFalse(list.append(2));
    assertTrue(list.delete(1));
    list.rewrite();
    assertEquals(0, region.get(ValueLayout.JAVA_INT_UNALIGNED, 4), "the tail shortcut names the one live node");
    assertFalse(list.append(3));
    assertArrayEquals(new long[] {2, 3}, list.values());
  }

  @Example
  void aRegionTooSmallOrNotAListIsRefused() {
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> new EwomList(MemorySegment.ofArray(new long[2])));
    assertTrue(small.getMessage().contains("at least"));
    MemorySegment region = MemorySegment.ofArray(new long[1 + 2 * 4]);
    EwomList list = new EwomList(region);
    list.clear();
    list.append(7);
    list.append(8);
    region.set(ValueLayout.JAVA_INT_UNALIGNED, 8 + 16, 0); // node 1 points back to node 0: a loop
    long[] before = region.toArray(ValueLayout.JAVA_LONG);
    IllegalStateException loop = assertThrows(IllegalStateException.class, () -> list.append(9));
    assertTrue(loop.getMessage().contains("points to 0"), loop.getMessage());
    assertArrayEquals(before, region.toArray(ValueLayout.JAVA_LONG));
    assertThrows(IllegalStateException.class, list::values);
  }
}
