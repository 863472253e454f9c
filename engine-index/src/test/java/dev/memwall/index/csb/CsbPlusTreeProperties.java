package dev.memwall.index.csb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TreeModel;
import dev.memwall.index.pbtree.PbTreeProperties;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** The CSB+-tree's searches agree with {@link TreeModel} after a bulkload, invariants hold. */
@AddLifecycleHook(PropertyLeakCheck.class)
class CsbPlusTreeProperties {

  @Provide
  Arbitrary<Long> keys() {
    return PbTreeProperties.keysForTests();
  }

  @Property(tries = 150)
  void searchMatchesTreeMap(@ForAll KeyType type, @ForAll @IntRange(min = 1, max = 4) int width,
      @ForAll boolean fetch, @ForAll @Size(max = 800) List<@From("keys") Long> keys,
      @ForAll @DoubleRange(min = 0.05, max = 1.0) double fill, @ForAll("keys") long probe, EngineMemory memory) {
    List<Long> sorted = new ArrayList<>();
    for (long k : keys) {
      sorted.add(type == KeyType.INT32 ? (long) (int) k : k);
    }
    Collections.sort(sorted);
    long[] k = new long[sorted.size()];
    long[] r = new long[k.length];
    TreeModel model = new TreeModel();
    for (int i = 0; i < k.length; i++) {
      k[i] = sorted.get(i);
      r[i] = 3L * i + 1;
      model.insert(k[i], r[i]);
    }
    try (CsbPlusTree tree = CsbPlusTree.bulkload(memory, type, width, fetch, SortedEntries.of(k, r), fill)) {
      tree.checkInvariants();
      assertEquals(model.size(), tree.size());
      RowIds out = new RowIds();
      for (Map.Entry<Long, List<Long>> e : model.map().entrySet()) {
        out.clear();
        assertEquals(e.getValue().size(), tree.search(e.getKey(), out));
        assertEquals(e.getValue(), List.of(boxed(out)));
        assertEquals(e.getValue().get(0), tree.searchFirst(e.getKey(), -1));
      }
      long p = type == KeyType.INT32 ? (int) probe : probe;
      for (long q : new long[] {p, type.min(), type.max(), 0}) {
        out.clear();
        assertEquals(model.rows(q).size(), tree.search(q, out));
        assertEquals(model.rows(q).isEmpty() ? -1L : model.rows(q).get(0), tree.searchFirst(q, -1));
      }
    }
  }

  @Example
  void badInputIsRefused(EngineMemory memory) {
    SortedEntries unsorted = SortedEntries.of(new long[] {2, 1}, new long[] {0, 1});
    assertThrows(IllegalArgumentException.class,
        () -> CsbPlusTree.bulkload(memory, KeyType.INT64, 1, false, unsorted, 1.0));
    SortedEntries wide = SortedEntries.of(new long[] {1L << 35}, new long[] {0});
    assertThrows(IllegalArgumentException.class, () -> CsbPlusTree.bulkload(memory, KeyType.INT32, 1, false, wide, 1.0));
    assertThrows(IllegalArgumentException.class,
        () -> CsbPlusTree.bulkload(memory, KeyType.INT64, 0, false, SortedEntries.of(new long[0], new long[0]), 1.0));
    assertEquals(0, memory.allocatedBytes());
    try (CsbPlusTree tree = CsbPlusTree.bulkload(memory, KeyType.INT32, 1, false,
        SortedEntries.of(new long[] {5}, new long[] {9}), 1.0)) {
      assertThrows(IllegalArgumentException.class, () -> tree.search(1L << 40, new RowIds()));
      assertEquals(9, tree.searchFirst(5, -1));
    }
  }

  private static Long[] boxed(RowIds ids) {
    Long[] values = new Long[ids.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = ids.get(i);
    }
    return values;
  }
}
