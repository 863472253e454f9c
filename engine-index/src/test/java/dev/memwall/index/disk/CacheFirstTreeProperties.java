package dev.memwall.index.disk;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.index.KeyType;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TreeModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link DiskTreeProperties}' model tests (inserts, deletes, searches, scans, syncs, reopens
 * against {@link TreeModel}, invariants after every operation) aimed at the cache-first tree
 * only, with more tries: node widths of 1-6 lines over 4, 8 and 16 KiB pages (from 9 to 255 slots a
 * page: narrow nodes and small pages split leaf pages and node pages after a few dozen inserts),
 * pools of 8-64 frames (evictions throughout), both key types and their limits.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class CacheFirstTreeProperties {
  private final DiskTreeProperties shared = new DiskTreeProperties();

  @Provide
  Arbitrary<DiskTreeConfig> configs() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.of(4096, 4096, 8192, 16384),
        Arbitraries.integers().between(1, 6), Arbitraries.of(8, 12, 64), Arbitraries.integers().between(0, 3))
        .as((kt, page, lines, frames, prefetch) -> new DiskTreeConfig(kt, DiskTreeType.FPB_CACHE_FIRST, page, 1, 1, 1,
            frames, 100_000, prefetch, page == 4096 && lines > 4 ? 4 : lines));
  }

  @Provide
  Arbitrary<List<DiskTreeProperties.Op>> operations() {
    return shared.operations();
  }

  @Provide
  Arbitrary<Long> bulkKeys() {
    return shared.bulkKeys();
  }

  @Property(tries = 150, afterFailure = AfterFailureMode.RANDOM_SEED)
  void randomOperationsMatchTreeMap(@ForAll("configs") DiskTreeConfig config,
      @ForAll("operations") List<DiskTreeProperties.Op> ops, EngineMemory memory) {
    shared.randomOperationsMatchTreeMap(config, ops, memory);
  }

  @Property(tries = 100, afterFailure = AfterFailureMode.RANDOM_SEED)
  void bulkloadThenOperationsMatchTreeMap(@ForAll("configs") DiskTreeConfig config,
      @ForAll @Size(max = 3000) List<@From("bulkKeys") Long> keys,
      @ForAll @DoubleRange(min = 0.05, max = 1.0) double fill, @ForAll("operations") List<DiskTreeProperties.Op> ops,
      EngineMemory memory) {
    shared.bulkloadThenOperationsMatchTreeMap(config, keys, fill, ops, memory);
  }
}
