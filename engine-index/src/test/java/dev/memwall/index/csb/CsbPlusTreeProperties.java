package dev.memwall.index.csb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import dev.memwall.index.OrderedIndex;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

/**
 * The CSB+-tree under {@link IndexModelProperties}: bulkloaded (both key types, node widths of 1-4
 * lines, with and without whole-node fetch, any fill), then searched and scanned; and its refusal
 * of bad input.
 */
@PropertyDefaults(tries = 150)
class CsbPlusTreeProperties extends IndexModelProperties {
  /** A CSB+-tree of one key type and node width; bulkloaded only. */
  record CsbSubject(KeyType keyType, int widthLines, boolean fetchWholeNode) implements Subject {
    @Override
    public OrderedIndex create(Path dir, EngineMemory memory) {
      return bulkload(dir, memory, SortedEntries.of(new long[0], new long[0]), 1.0);
    }

    @Override
    public OrderedIndex bulkload(Path dir, EngineMemory memory, SortedEntries entries, double fill) {
      return CsbPlusTree.bulkload(memory, keyType, widthLines, fetchWholeNode, entries, fill);
    }
  }

  @Override
  @Provide
  public Arbitrary<Subject> subjects() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.integers().between(1, 4),
        Arbitraries.of(true, false)).as(CsbSubject::new);
  }

  @Override
  protected int maxBulkloadEntries() {
    return 800;
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
    CsbPlusTree closed;
    try (CsbPlusTree tree = CsbPlusTree.bulkload(memory, KeyType.INT32, 1, false,
        SortedEntries.of(new long[] {5}, new long[] {9}), 1.0)) {
      assertThrows(IllegalArgumentException.class, () -> tree.search(1L << 40, new RowIds()));
      assertThrows(IllegalArgumentException.class, () -> tree.contains(1L << 40));
      assertThrows(IllegalArgumentException.class, () -> tree.scan(0, 1L << 40));
      assertThrows(IllegalArgumentException.class, () -> tree.scan(0, 9).next(new long[2], new long[3]));
      assertEquals(9, tree.searchFirst(5, -1));
      closed = tree;
    }
    assertThrows(IllegalStateException.class, () -> closed.contains(5));
    assertThrows(IllegalStateException.class, () -> closed.scan(0, 9));
  }
}
