package dev.memwall.index.pbtree;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.Placement;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.OrderedIndex;
import dev.memwall.index.SortedEntries;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

/**
 * {@link PrefetchingBPlusTree} under {@link IndexModelProperties}, over random configurations (key
 * type, width, whole-node fetch, jump pointers, d, c, batch group, optimistic readers on or off);
 * scans pick their {@link ScanPrefetch} mode at random and check whether it prefetches.
 */
@PropertyDefaults(tries = 120)
class PbTreeProperties extends IndexModelProperties {
  /** A pB+-tree of one configuration. */
  record PbSubject(PbTreeConfig config) implements Subject {
    @Override
    public KeyType keyType() {
      return config.keyType();
    }

    @Override
    public OrderedIndex create(Path dir, EngineMemory memory) {
      return PrefetchingBPlusTree.create(memory, config);
    }

    @Override
    public OrderedIndex bulkload(Path dir, EngineMemory memory, SortedEntries entries, double fill) {
      return PrefetchingBPlusTree.bulkload(memory, config, entries, fill);
    }

    /** A scan in the mode {@code selector} picks, checked to prefetch only where it can. */
    @Override
    public IndexScan scan(OrderedIndex index, long lo, long hi, int selector) {
      PrefetchingBPlusTree tree = (PrefetchingBPlusTree) index;
      ScanPrefetch mode = ScanPrefetch.values()[selector % 3];
      PrefetchingBPlusTree.RangeScan scan = tree.scan(lo, hi, mode);
      if (mode == ScanPrefetch.NEVER || config.jumpPointers() == JumpPointers.NONE || tree.height() == 1) {
        assertFalse(scan.prefetching());
      } else if (mode == ScanPrefetch.ALWAYS && lo <= hi) {
        assertTrue(scan.prefetching());
      }
      return scan;
    }
  }

  @Override
  @Provide
  public Arbitrary<Subject> subjects() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.of(1, 2, 3, 4, 8),
        Arbitraries.of(true, false), Arbitraries.of(JumpPointers.values()), Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(1, 2), Arbitraries.integers().between(1, 8), Arbitraries.of(0L, 100L))
        .as((kt, w, fetch, jp, d, c, group, min) -> new PbTreeConfig(kt, w, fetch, jp, d, c, min, group,
            Placement.DEFAULT))
        .flatMap(config -> Arbitraries.of(false, true).map(config::withOptimisticReaders))
        .map(PbSubject::new);
  }

  @Override
  protected int maxOperations() {
    return 250;
  }

  @Override
  protected int maxBulkloadEntries() {
    return 600;
  }
}
