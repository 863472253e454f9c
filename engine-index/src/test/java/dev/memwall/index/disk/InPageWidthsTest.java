package dev.memwall.index.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InPageWidthsTest {
  /** Seed 002 Table 3.1, disk-first columns: 4-byte keys and tuple ids, T1 = 250, Tnext = 15. */
  @ParameterizedTest
  @CsvSource({"4096, 64, 384, 470", "8192, 192, 256, 961", "16384, 128, 768, 1995", "32768, 256, 832, 4017"})
  void reproducesTable31(int pageBytes, int nonLeafBytes, int leafBytes, int fanout) {
    InPageWidths w = InPageWidths.choose(pageBytes, 4, 4, 250, 15);
    assertEquals(nonLeafBytes / 64, w.nonLeafLines(), "non-leaf width for " + pageBytes);
    assertEquals(leafBytes / 64, w.leafLines(), "leaf width for " + pageBytes);
    assertEquals(fanout, w.pageFanout(), "page fan-out for " + pageBytes);
    assertTrue(w.cost() <= 1.10 * w.bestCost(), "goal G keeps the cost within 10% of the best");
  }

  /**
   * Table 3.2 (8-byte keys, 4-byte tuple ids, T1 = 189, Tnext = 24): the 16 KB row is reproduced.
   * The thesis's other rows pick pairs our cost model puts just outside the 10% band (their
   * Itanium 2 model is not given in full), so only this row is asserted.
   */
  @ParameterizedTest
  @CsvSource({"16384, 256, 640, 1325"})
  void reproducesTable32Row(int pageBytes, int nonLeafBytes, int leafBytes, int fanout) {
    InPageWidths w = InPageWidths.choose(pageBytes, 8, 4, 189, 24);
    assertEquals(nonLeafBytes / 64, w.nonLeafLines());
    assertEquals(leafBytes / 64, w.leafLines());
    assertEquals(fanout, w.pageFanout());
  }

  @ParameterizedTest
  @CsvSource({"4096, 1, 6", "8192, 3, 4", "16384, 2, 12", "4096, 1, 1", "32768, 32, 32"})
  void evaluatedTreesFitTheirPage(int pageBytes, int w, int x) {
    InPageWidths e = InPageWidths.evaluate(pageBytes, 8, 8, w, x, 250, 15);
    if (e != null) {
      assertTrue(InPageWidths.linesFor(e.leafNodes(), w, x, e.nonLeafFanout()) <= pageBytes / 64 - 1);
      assertTrue(InPageWidths.linesFor(e.leafNodes() + 1, w, x, e.nonLeafFanout()) > pageBytes / 64 - 1
          || e.leafNodes() + 1 > Math.pow(e.nonLeafFanout(), e.levels() - 1), "one more leaf node must not fit");
    }
  }

  @ParameterizedTest
  @CsvSource({"0, 15", "250, 0", "-1, -1"})
  void refusesNonPositiveLatencies(double t1, double tnext) {
    assertThrows(IllegalArgumentException.class, () -> InPageWidths.choose(4096, 4, 4, t1, tnext));
  }
}
