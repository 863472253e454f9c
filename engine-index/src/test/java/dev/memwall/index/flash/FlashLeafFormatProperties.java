package dev.memwall.index.flash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.index.page.PageFormat;
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

/**
 * {@link FlashLeafFormat} on one page against a sorted list of {@code (key, value)} entries in
 * insertion order: every read method after every insert and delete, with duplicates, keys at the
 * type's limits and all-ones entries (which look like erased bytes); and the point of the format,
 * that an insert or delete that fits never turns a bit from 0 to 1.
 */
class FlashLeafFormatProperties {
  private static final int PAGE = 4096;

  /** An operation: insert {@code (key, value)}, or delete the live entry at {@code rank % count}. */
  record Op(boolean insert, long key, long value, int rank) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Long> keys = Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.longs().between(-8, 8)),
        Tuple.of(2, Arbitraries.longs()), Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L)));
    Arbitrary<Long> values = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(0, 1000)),
        Tuple.of(1, Arbitraries.of(-1L, Long.MIN_VALUE)));
    Arbitrary<Op> insert = net.jqwik.api.Combinators.combine(keys, values).as((k, v) -> new Op(true, k, v, 0));
    Arbitrary<Op> delete = Arbitraries.integers().between(0, Integer.MAX_VALUE).map(r -> new Op(false, 0, 0, r));
    return Arbitraries.frequencyOf(Tuple.of(3, insert), Tuple.of(1, delete)).list().ofMaxSize(1200);
  }

  @Property(tries = 60)
  void matchesASortedListAndOnlyClearsBitsBetweenRewrites(@ForAll("ops") List<Op> ops,
      @ForAll("keyBytes") int keyBytes) {
    FlashLeafFormat f = new FlashLeafFormat(PAGE, keyBytes, Long.BYTES);
    MemorySegment page = MemorySegment.ofArray(new long[PAGE / 8]);
    f.build(page, 0, new long[0], new long[0], 0, 0);
    List<long[]> model = new ArrayList<>();
    long[] ks = new long[f.capacity() + 2];
    long[] vs = new long[f.capacity() + 2];
    for (Op op : ops) {
      long[] before = page.toArray(ValueLayout.JAVA_LONG);
      boolean inPlace;
      if (op.insert()) {
        long key = keyBytes == 4 ? (int) op.key() : op.key();
        int at = upper(model, key);
        model.add(at, new long[] {key, op.value()});
        inPlace = f.insertAt(page, 0, f.insertionPoint(page, 0, key), key, op.value());
        if (!inPlace) { // what the tree does: rewrite from the entries with the new one in place
          assertEquals(f.capacity(), used(f, page), "an insert fails only on a page with no erased slot");
          int n = f.flatten(page, 0, ks, vs);
          System.arraycopy(ks, at, ks, at + 1, n - at);
          System.arraycopy(vs, at, vs, at + 1, n - at);
          ks[at] = key;
          vs[at] = op.value();
          if (n + 1 > f.capacity()) {
            model.remove(at);
            continue; // a full page splits in the tree; here it just refuses
          }
          f.build(page, 0, ks, vs, 0, n + 1);
        }
      } else {
        if (model.isEmpty()) {
          continue;
        }
        int r = op.rank() % model.size();
        long h = f.first(page, 0);
        for (int i = 0; i < r; i++) {
          h = f.next(page, 0, h);
        }
        f.remove(page, 0, h);
        model.remove(r);
        inPlace = true;
      }
      if (inPlace) {
        assertOnlyClears(before, page.toArray(ValueLayout.JAVA_LONG));
      }
      assertSame(f, page, model, ks, vs);
    }
  }

  @Provide
  Arbitrary<Integer> keyBytes() {
    return Arbitraries.of(4, 8);
  }

  private static int used(FlashLeafFormat f, MemorySegment page) {
    int n = 0;
    for (long h = f.first(page, 0); h != PageFormat.END; h = f.next(page, 0, h)) {
      n = Math.max(n, (int) h + 1);
    }
    return Math.max(n, usedSlotsFromBits(f, page));
  }

  /** Slots in use by the written bits: a page refuses an insert only when all are in use. */
  private static int usedSlotsFromBits(FlashLeafFormat f, MemorySegment page) {
    int zeros = 0;
    for (int i = 0; i < f.capacity(); i++) {
      long word = page.get(ValueLayout.JAVA_LONG_UNALIGNED, PageFormat.HEADER_BYTES + 8L * (i >>> 6));
      zeros += (word & (1L << i)) == 0 ? 1 : 0;
    }
    return zeros;
  }

  private static int upper(List<long[]> model, long key) {
    int i = 0;
    while (i < model.size() && model.get(i)[0] <= key) {
      i++;
    }
    return i;
  }

  private static void assertOnlyClears(long[] before, long[] after) {
    for (int i = 1; i < before.length; i++) { // word 0 holds the checksum (and the untouched header)
      assertEquals(0, ~before[i] & after[i], "word " + i + " gained a 1 bit in an in-place update");
    }
  }

  private static void assertSame(FlashLeafFormat f, MemorySegment page, List<long[]> model, long[] ks, long[] vs) {
    f.check(page, 0);
    assertEquals(model.size(), f.count(page, 0));
    int i = 0;
    for (long h = f.first(page, 0); h != PageFormat.END; h = f.next(page, 0, h), i++) {
      assertEquals(model.get(i)[0], f.key(page, 0, h), "key at rank " + i);
      assertEquals(model.get(i)[1], f.value(page, 0, h), "value at rank " + i);
      assertEquals(i, f.rank(page, 0, h));
    }
    assertEquals(model.size(), i);
    assertEquals(model.size(), f.rank(page, 0, PageFormat.END));
    long last = f.last(page, 0);
    if (model.isEmpty()) {
      assertEquals(PageFormat.END, last);
      assertEquals(PageFormat.END, f.first(page, 0));
    } else {
      assertEquals(model.getLast()[0], f.key(page, 0, last));
      assertEquals(model.getLast()[1], f.value(page, 0, last));
      assertEquals(PageFormat.END, f.next(page, 0, last));
    }
    int n = f.flatten(page, 0, ks, vs);
    assertEquals(model.size(), n);
    for (int j = 0; j < n; j++) {
      assertArrayEquals(model.get(j), new long[] {ks[j], vs[j]}, "flattened entry " + j);
    }
    for (long probe : new long[] {Long.MIN_VALUE, -1, 0, 3, Long.MAX_VALUE}) {
      long lb = f.lowerBound(page, 0, probe);
      long ub = f.upperBound(page, 0, probe);
      int lo = 0;
      while (lo < model.size() && model.get(lo)[0] < probe) {
        lo++;
      }
      int hi = upper(model, probe);
      assertEquals(lo, lb == PageFormat.END ? model.size() : f.rank(page, 0, lb), "lower bound of " + probe);
      assertEquals(hi, ub == PageFormat.END ? model.size() : f.rank(page, 0, ub), "upper bound of " + probe);
      assertEquals(hi, f.rank(page, 0, f.insertionPoint(page, 0, probe)));
    }
  }

  @Example
  void fullPageRefusesTheInsertAndChangesNothing() {
    FlashLeafFormat f = new FlashLeafFormat(PAGE, 8, 8);
    MemorySegment page = MemorySegment.ofArray(new long[PAGE / 8]);
    long[] keys = new long[f.capacity()];
    long[] values = new long[f.capacity()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i;
    }
    f.build(page, 0, keys, values, 0, keys.length);
    long[] before = page.toArray(ValueLayout.JAVA_LONG);
    assertFalse(f.insertAt(page, 0, PageFormat.END, 5, 5));
    assertArrayEquals(before, page.toArray(ValueLayout.JAVA_LONG));
    assertTrue(f.reorganizeLimit() < f.capacity());
  }

  @Example
  void tooManyEntriesForABuildAndBadWidthsAreRefused() {
    FlashLeafFormat f = new FlashLeafFormat(PAGE, 8, 8);
    MemorySegment page = MemorySegment.ofArray(new long[PAGE / 8]);
    long[] many = new long[f.capacity() + 1];
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> f.build(page, 0, many, many, 0, many.length));
    assertTrue(e.getMessage().contains("do not fit"));
    assertThrows(IllegalArgumentException.class, () -> new FlashLeafFormat(PAGE, 2, 8));
  }

  @Example
  void checkNamesASlotThatIsNotErased() {
    FlashLeafFormat f = new FlashLeafFormat(PAGE, 8, 8);
    MemorySegment page = MemorySegment.ofArray(new long[PAGE / 8]);
    f.build(page, 0, new long[] {1}, new long[] {2}, 0, 1);
    page.set(ValueLayout.JAVA_BYTE, PAGE - 1, (byte) 0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.check(page, 0));
    assertTrue(e.getMessage().contains("not erased"), e.getMessage());
  }
}
