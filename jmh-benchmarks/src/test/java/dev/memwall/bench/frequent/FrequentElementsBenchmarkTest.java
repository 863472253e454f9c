package dev.memwall.bench.frequent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.StandingFrequent;
import dev.memwall.core.frequent.StandingTopK;
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

/**
 * The benchmark's exact baseline against a HashMap, the structures agreeing on clear heavy hitters, and
 * the standing answers reading what the walks find on the benchmark's own stream.
 */
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
  void theStandingAnswersReadWhatTheWalksFind() {
    long[] stream = FrequentElementsBenchmark.zipf(100_000, 16_384, 1.0, 4);
    try (EngineMemory memory = EngineMemory.create("benchmark test");
        SpaceSaving summary = SpaceSaving.create(memory, FrequentElementsBenchmark.COUNTERS)) {
      StandingTopK top = summary.standingTopK(FrequentElementsBenchmark.TOP_K);
      StandingFrequent frequent = summary.standingFrequent(FrequentElementsBenchmark.PHI);
      long[] walked = new long[4 * FrequentElementsBenchmark.COUNTERS];
      long[] kept = new long[4 * FrequentElementsBenchmark.COUNTERS];
      for (int i = 0; i < stream.length; i++) {
        summary.offer(stream[i]);
        if (i % 997 == 0 || i == stream.length - 1) {
          int n = summary.frequentKeys(FrequentElementsBenchmark.PHI, walked);
          assertEquals(n, frequent.keys(kept));
          assertEquals(Arrays.stream(walked, 0, n).boxed().collect(Collectors.toSet()),
              Arrays.stream(kept, 0, n).boxed().collect(Collectors.toSet()), "frequent keys after " + (i + 1));
          int t = summary.topKKeys(FrequentElementsBenchmark.TOP_K, walked);
          assertEquals(t, top.keys(kept));
          assertEquals(Arrays.stream(walked, 0, t).map(summary::estimate).sorted().boxed().toList(),
              Arrays.stream(kept, 0, t).map(summary::estimate).sorted().boxed().toList(), "top-k counts after " + (i + 1));
        }
      }
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
