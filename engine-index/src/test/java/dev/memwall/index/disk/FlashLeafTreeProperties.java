package dev.memwall.index.disk;

import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

/**
 * The {@link DiskTreeType#FLASH_LEAF} tree alone under {@link IndexModelProperties}, with enough
 * operations on 4 KiB pages (248 slots a leaf) that leaves run out of erased slots and are
 * rewritten or split many times, with deleted entries among them, between syncs and reopens.
 */
@PropertyDefaults(tries = 40)
public class FlashLeafTreeProperties extends IndexModelProperties {
  @Override
  @Provide
  public Arbitrary<Subject> subjects() {
    return Arbitraries.of(KeyType.values()).flatMap(kt -> Arbitraries.of(12, 64).map(frames ->
        new DiskTreeProperties.DiskSubject(new DiskTreeConfig(kt, DiskTreeType.FLASH_LEAF, 4096, 1, 1, 1, frames,
            100_000, 1))));
  }

  @Override
  protected int maxOperations() {
    return 2000;
  }

  @Override
  protected int maxBulkloadEntries() {
    return 2000;
  }
}
