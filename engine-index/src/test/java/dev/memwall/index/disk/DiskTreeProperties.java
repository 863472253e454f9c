package dev.memwall.index.disk;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import dev.memwall.index.OrderedIndex;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.disktrees.DiskIndexes;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

/**
 * Every {@link DiskTreeType} under {@link IndexModelProperties}, syncs and reopens among the
 * operations: narrow in-page nodes, 4 KiB pages and small pools make small inputs split pages,
 * grow the tree and evict.
 */
@PropertyDefaults(tries = 100)
public class DiskTreeProperties extends IndexModelProperties {
  /** A disk tree of one configuration, in the file {@code tree.pages} of the runner's directory. */
  public record DiskSubject(DiskTreeConfig config) implements Subject {
    @Override
    public KeyType keyType() {
      return config.keyType();
    }

    @Override
    public OrderedIndex create(Path dir, EngineMemory memory) {
      return DiskIndexes.create(dir.resolve("tree.pages"), config, memory);
    }

    @Override
    public OrderedIndex bulkload(Path dir, EngineMemory memory, SortedEntries entries, double fill) {
      return DiskIndexes.bulkload(dir.resolve("tree.pages"), config, memory, entries, fill);
    }

    @Override
    public void sync(OrderedIndex index) {
      ((DiskIndex) index).sync();
    }

    @Override
    public OrderedIndex reopen(OrderedIndex index, Path dir, EngineMemory memory) {
      index.close();
      return DiskIndexes.open(dir.resolve("tree.pages"), config, memory);
    }
  }

  @Override
  @Provide
  public Arbitrary<Subject> subjects() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.of(DiskTreeType.values()),
        Arbitraries.of(4096, 4096, 8192), Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(1, 4), Arbitraries.of(12, 16, 64), Arbitraries.integers().between(0, 3))
        .as((kt, treeType, page, w, x, sub, frames, prefetch) -> new DiskSubject(new DiskTreeConfig(kt, treeType,
            page, w, x, sub, frames, 100_000, prefetch)));
  }

  @Override
  protected int maxOperations() {
    return 600;
  }

  @Override
  protected int maxBulkloadEntries() {
    return 1500;
  }
}
