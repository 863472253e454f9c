package dev.memwall.join;

import dev.memwall.core.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {
  /**
   * The algorithms' packages use the join's vocabulary, which lives beside the {@link Join} facade that
   * uses them: a known cycle, tolerated by these types until they move below the algorithms.
   */
  @Test
  void joinPackagesFormNoCycleButTheKnownOne() {
    PackageCycles.assertNone("dev.memwall.join", JoinType.class, JoinIndex.class, PairChunk.class,
        JoinAlgorithm.class, JoinKeyException.class, JoinMemoryException.class, JoinSpillException.class);
  }
}
