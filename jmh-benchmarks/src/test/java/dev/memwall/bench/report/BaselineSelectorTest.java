package dev.memwall.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BaselineSelectorTest {
  private static final JmhResult.RunSettings RUN = new JmhResult.RunSettings("1.37", "", "", 1, 1, 3, "1 s", 5, "1 s");

  static JmhResult result(String method, Map<String, String> params, double score) {
    return new JmhResult("dev.x.Bench." + method, "avgt", params, score, 0.1, "ms/op", RUN);
  }

  @Test
  void aWildcardPairsEachMethodWithItsOwnFamily() {
    var sumHeap = result("sumHeapArray", Map.of(), 1);
    var filteredHeap = result("filteredSumHeapArray", Map.of(), 1);
    var sumSegment = result("sumSegment", Map.of(), 1);
    var filteredSegment = result("filteredSumSegment", Map.of(), 1);
    var all = List.of(filteredHeap, filteredSegment, sumHeap, sumSegment);
    var selector = BaselineSelector.parse("*HeapArray");
    assertEquals(Optional.of(sumHeap), selector.baselineOf(sumSegment, all));
    assertEquals(Optional.of(filteredHeap), selector.baselineOf(filteredSegment, all));
    assertEquals(Optional.of(sumHeap), selector.baselineOf(sumHeap, all));
    // a prefix pattern: families are suffixes
    var prefixed = BaselineSelector.parse("scalar*");
    var scalarSum = result("scalarSum", Map.of(), 1);
    var vectorSum = result("vectorSum", Map.of(), 1);
    assertEquals(Optional.of(scalarSum), prefixed.baselineOf(vectorSum, List.of(scalarSum, vectorSum)));
  }

  @Test
  void aMethodBaselineNeedsTheSameParameters() {
    var duck1 = result("duckdb", Map.of("query", "1", "threads", "1"), 240);
    var duck2 = result("duckdb", Map.of("query", "1", "threads", "2"), 117);
    var mine2 = result("memwall", Map.of("query", "1", "threads", "2"), 82);
    var mine3 = result("memwall", Map.of("query", "1", "threads", "3"), 60);
    var all = List.of(duck1, duck2, mine2, mine3);
    var selector = BaselineSelector.parse("duckdb");
    assertEquals(Optional.of(duck2), selector.baselineOf(mine2, all));
    assertEquals(Optional.empty(), selector.baselineOf(mine3, all));
  }

  @Test
  void aParamBaselineKeepsTheMethodAndTheOtherParameters() {
    var nested = result("join", Map.of("algorithm", "nestedLoops", "tuples", "1000"), 1);
    var nestedBuild = result("build", Map.of("algorithm", "nestedLoops", "tuples", "1000"), 1);
    var radix = result("join", Map.of("algorithm", "radix", "tuples", "1000"), 1);
    var radixBig = result("join", Map.of("algorithm", "radix", "tuples", "5000"), 1);
    var noParam = result("join", Map.of("tuples", "1000"), 1);
    var all = List.of(nestedBuild, nested, radix, radixBig, noParam);
    var selector = BaselineSelector.parse("algorithm = nestedLoops");
    assertEquals("algorithm=nestedLoops", selector.text());
    assertEquals(Optional.of(nested), selector.baselineOf(radix, all));
    assertEquals(Optional.empty(), selector.baselineOf(radixBig, all));
    assertEquals(Optional.empty(), selector.baselineOf(noParam, all));
  }

  @Test
  void malformedSelectorsAreRejectedByName() {
    for (String bad : List.of("", " ", "=x", "algorithm=", "*a*")) {
      var e = assertThrows(IllegalArgumentException.class, () -> BaselineSelector.parse(bad));
      assertTrue(e.getMessage().contains("baseline selector"), e.getMessage());
    }
  }
}
