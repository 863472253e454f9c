package dev.memwall.index.fpb;

import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeProperties.DiskSubject;
import dev.memwall.index.disk.DiskTreeType;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

/**
 * The cache-first tree under {@link IndexModelProperties} with more configurations than
 * {@code disk.DiskTreeProperties} gives it: node widths of 1-6 lines over 4, 8 and 16 KiB pages
 * (from 9 to 255 slots a page: narrow nodes and small pages split leaf pages and node pages after a
 * few dozen inserts), pools of 8-64 frames (evictions throughout), both key types and their limits.
 */
@PropertyDefaults(tries = 100)
class CacheFirstTreeProperties extends IndexModelProperties {
  @Override
  @Provide
  public Arbitrary<Subject> subjects() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.of(4096, 4096, 8192, 16384),
        Arbitraries.integers().between(1, 6), Arbitraries.of(8, 12, 64), Arbitraries.integers().between(0, 3))
        .as((kt, page, lines, frames, prefetch) -> new DiskSubject(new DiskTreeConfig(kt,
            DiskTreeType.FPB_CACHE_FIRST, page, 1, 1, 1, frames, 100_000, prefetch,
            page == 4096 && lines > 4 ? 4 : lines)));
  }

  @Override
  protected int maxOperations() {
    return 600;
  }

  @Override
  protected int maxBulkloadEntries() {
    return 3000;
  }
}
