package dev.memwall.substrait;

import dev.memwall.core.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  /**
   * The logical plan ({@code logical}) knows nothing of Substrait or of running; the optimizer reads
   * and rewrites it; the consumer at the top converts into it and lowers out of it.
   */
  @Test
  void substraitPackagesFormNoCycle() {
    PackageCycles.assertNone("dev.memwall.substrait");
  }
}
