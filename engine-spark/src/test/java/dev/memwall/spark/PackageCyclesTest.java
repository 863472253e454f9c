package dev.memwall.spark;

import dev.memwall.core.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  @Test
  void sparkPackagesFormNoCycle() {
    PackageCycles.assertNone("dev.memwall.spark");
  }
}
