package dev.memwall.index;

import dev.memwall.core.architecture.PackageCycles;
import dev.memwall.index.fpb.CacheFirstLayout;
import dev.memwall.index.fpb.CacheFirstTree;
import dev.memwall.index.fpb.DiskFirstFormat;
import dev.memwall.index.fpb.InPageWidths;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  /**
   * The fpB+-trees build on the disk tree's base classes, and {@code DiskIndex}'s factories and
   * {@code DiskTreeConfig}'s layout choice name them back: a known cycle, tolerated by these types until
   * the factories and the choice move above both packages.
   */
  @Test
  void indexPackagesFormNoCycleButTheKnownOne() {
    PackageCycles.assertNone("dev.memwall.index", CacheFirstTree.class, CacheFirstLayout.class,
        CacheFirstLayout.Choice.class, InPageWidths.class, DiskFirstFormat.class);
  }
}
