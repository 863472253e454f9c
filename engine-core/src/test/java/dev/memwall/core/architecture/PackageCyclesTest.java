package dev.memwall.core.architecture;

import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  @Test
  void corePackagesFormNoCycle() {
    PackageCycles.assertNone("dev.memwall.core");
  }
}
