package dev.memwall.index;

import dev.memwall.core.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  /**
   * The index packages form no cycle: the fpB+-trees build on {@code disk}, which names nothing in
   * {@code fpb}; the factories choosing between both ({@code disktrees.DiskIndexes}) sit above them.
   */
  @Test
  void indexPackagesFormNoCycle() {
    PackageCycles.assertNone("dev.memwall.index");
  }
}
