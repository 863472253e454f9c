package dev.memwall.bench.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.index.temporal.TemporalFileConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page counts follow the paper where its argument holds in pages: at 100 versions an attribute's
 * history reads fewer pages in PSP than in NSM, TDSM's history joins one sub-relation per attribute,
 * a snapshot reads every data page, and NSM's redundant rows take the most pages.
 */
class TemporalPageCountsTest {
  @TempDir
  Path dir;

  @Test
  void pspReadsFewerPagesThanNsmForAnAttributesHistory() {
    try (EngineMemory memory = EngineMemory.create("page counts test")) {
      Map<LayoutKind, double[]> counts = TemporalPageCounts.count(dir, 256, 100,
          new TemporalFileConfig(8192, 64, Integer.MAX_VALUE), memory);
      double[] nsm = counts.get(LayoutKind.NSM);
      double[] tdsm = counts.get(LayoutKind.TDSM);
      double[] psp = counts.get(LayoutKind.PSP);
      assertTrue(psp[1] < nsm[1], "attribute history: PSP " + psp[1] + ", NSM " + nsm[1]);
      assertTrue(psp[0] < nsm[0], "entity history: PSP " + psp[0] + ", NSM " + nsm[0]);
      assertEquals(TemporalLayoutBenchmark.ATTRIBUTES, tdsm[0], 0.0, "TDSM reads a page per sub-relation");
      for (double[] c : counts.values()) {
        assertEquals(c[3], c[2], 0.0, "a snapshot reads every data page");
      }
      assertTrue(nsm[3] > psp[3], "NSM's redundant rows take more pages: " + nsm[3] + " to " + psp[3]);
    }
  }
}
