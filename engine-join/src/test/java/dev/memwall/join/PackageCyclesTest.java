package dev.memwall.join;

import dev.memwall.core.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  /**
   * The join's vocabulary lives in {@code dev.memwall.join.common}, below both the algorithms and the
   * {@link Join} facade that names them, so no package of the join depends on one that depends on it.
   */
  @Test
  void joinPackagesFormNoCycle() {
    PackageCycles.assertNone("dev.memwall.join");
  }
}
