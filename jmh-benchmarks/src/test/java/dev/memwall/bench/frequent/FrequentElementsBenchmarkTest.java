package dev.memwall.bench.frequent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.memory.EngineMemory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.LongsSketch;
import org.junit.jupiter.api.Test;

/** The benchmark's exact baseline against a HashMap, and the three structures agreeing on clear heavy hitters. */
class FrequentElementsBenchmarkTest {

  @Test
  void exactCountsAnswerAsAHashMapDoes() {
    for (double skew : new double[] {0.0, 0.5, 1.0, 2.0}) {
      long[] stream = FrequentElementsBenchmark.zipf(50_000, 3_000, skew, 5);
      ExactCounts counts = new ExactCounts();
      Map<Long, Long> reference = new HashMap<>();
      for (long key : stream) {
        counts.offer(key);
        reference.merge(key, 1L, Long::sum);
      }
      reference.forEach((key, count) -> assertEquals(count, counts.count(key)));
      long[] top = new long[20];
      int n = counts.topK(20, top);
      List<Long> expected = reference.values().stream().sorted((a, b) -> Long.compare(b, a)).limit(20).toList();
      assertEquals(expected, Arrays.stream(top, 0, n).mapToObj(counts::count).toList(), "skew " + skew);
      long[] frequent = new long[3_000];
      int f = counts.frequent(0.001, frequent);
      assertEquals(reference.entrySet().stream().filter(e -> e.getValue() > 0.001 * stream.length)
          .map(Map.Entry::getKey).collect(Collectors.toSet()),
          Arrays.stream(frequent, 0, f).boxed().collect(Collectors.toSet()));
    }
  }

  @Test
  void theThreeStructuresAgreeOnClearHeavyHitters() {
    long[] stream = FrequentElementsBenchmark.zipf(200_000, 16_384, 2.0, 9);
    ExactCounts exact = new ExactCounts();
    LongsSketch sketch = new LongsSketch(4 * FrequentElementsBenchmark.COUNTERS);
    try (EngineMemory memory = EngineMemory.create("benchmark test");
        SpaceSaving summary = SpaceSaving.create(memory, FrequentElementsBenchmark.COUNTERS)) {
      for (long key : stream) {
        exact.offer(key);
        sketch.update(key);
        summary.offer(key);
      }
      long[] keys = new long[5];
      exact.topK(5, keys);
      Set<Long> expected = Arrays.stream(keys).boxed().collect(Collectors.toSet());
      summary.topKKeys(5, keys);
      assertEquals(expected, Arrays.stream(keys).boxed().collect(Collectors.toSet()), "Space-Saving's top 5");
      assertEquals(expected, Arrays.stream(sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)).limit(5)
          .map(LongsSketch.Row::getItem).collect(Collectors.toSet()), "DataSketches' top 5");
    }
  }

  @Test
  void queryLoadsAreSharesOfTheOperations() {
    assertEquals(0, FrequentElementsBenchmark.queryEvery(0));
    assertEquals(9, FrequentElementsBenchmark.queryEvery(10));
    assertEquals(1, FrequentElementsBenchmark.queryEvery(50));
    assertThrows(IllegalArgumentException.class, () -> FrequentElementsBenchmark.queryEvery(100));
  }
}
