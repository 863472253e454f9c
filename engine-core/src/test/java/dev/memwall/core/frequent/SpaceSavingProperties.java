package dev.memwall.core.frequent;

import static dev.memwall.core.frequent.Guarantees.checkBounds;
import static dev.memwall.core.frequent.Guarantees.checkFrequent;
import static dev.memwall.core.frequent.Guarantees.checkTopK;
import static dev.memwall.core.frequent.Guarantees.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Space-Saving's guarantees against exact counts, over Zipf streams of skew 0 (uniform) to 2, one
 * key repeated, empty and one-element streams, keys at the limits of long, more and fewer distinct
 * keys than counters; for one summary fed key by key or in batches, and for summaries of a stream's
 * parts merged in any grouping.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SpaceSavingProperties {

  /** A stream with the summary's capacity. */
  record Case(long[] stream, int counters, String shape) {
    @Override
    public String toString() {
      return shape + ", " + stream.length + " keys, " + counters + " counters";
    }
  }

  @Provide
  Arbitrary<Case> streams() {
    Arbitrary<Integer> lengths = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.of(0, 1, 2)),
        net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(3, 20_000)));
    Arbitrary<Integer> distinct = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just(1)),
        net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(2, 5_000)));
    Arbitrary<Double> skew = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just(0.0)),
        net.jqwik.api.Tuple.of(5, Arbitraries.doubles().between(0.5, 2.0)));
    Arbitrary<Integer> counters = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.of(1, 2)),
        net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(3, 300)));
    return Combinators.combine(lengths, distinct, skew, Arbitraries.of(Streams.Keys.class), counters,
            Arbitraries.longs())
        .as((length, d, s, keys, m, seed) -> new Case(Streams.zipf(length, d, s, keys, seed), m,
            "zipf " + s + " over " + d + " " + keys + " keys"));
  }

  @Property(tries = 150)
  void everyAnswerKeepsTheBoundsAgainstExactCounts(@ForAll("streams") Case c, @ForAll @IntRange(min = 0, max = 40) int k,
      EngineMemory memory) {
    Map<Long, Long> exact = Streams.exact(c.stream(), 0, c.stream().length);
    try (SpaceSaving summary = SpaceSaving.create(memory, c.counters())) {
      for (long key : c.stream()) {
        summary.offer(key);
      }
      checkSummary(summary, exact, c.stream().length, k);
      // a plain summary's counts add up to the stream's length
      long sum = summary.topK(c.counters()).items().stream().mapToLong(FrequentItem::count).sum();
      assertEquals(c.stream().length, sum, "counts of an unmerged summary");
    }
  }

  @Property(tries = 60)
  void batchesCountAsKeyByKey(@ForAll("streams") Case c, @ForAll @IntRange(min = 1, max = 3000) int batch,
      EngineMemory memory) {
    try (SpaceSaving one = SpaceSaving.create(memory, c.counters());
        SpaceSaving batched = SpaceSaving.create(memory, c.counters())) {
      for (long key : c.stream()) {
        one.offer(key);
      }
      for (int from = 0; from < c.stream().length; from += batch) {
        batched.offer(c.stream(), from, Math.min(batch, c.stream().length - from));
      }
      assertEquals(one.topK(c.counters()), batched.topK(c.counters()));
      assertEquals(one.unmonitoredBound(), batched.unmonitoredBound());
    }
  }

  @Property(tries = 100)
  void mergedPartsKeepTheBoundsOfTheWholeStream(@ForAll("streams") Case c, @ForAll @IntRange(min = 2, max = 6) int parts,
      @ForAll boolean tree, @ForAll @IntRange(min = 0, max = 40) int k, EngineMemory memory) {
    long[] stream = c.stream();
    List<SpaceSaving> summaries = new ArrayList<>();
    try {
      for (int p = 0; p < parts; p++) {
        SpaceSaving part = SpaceSaving.create(memory, c.counters());
        summaries.add(part);
        // skewed cut points: parts of very different lengths, some empty
        int from = (int) ((long) stream.length * p * p / (parts * parts));
        int to = (int) ((long) stream.length * (p + 1) * (p + 1) / (parts * parts));
        part.offer(stream, from, to - from);
      }
      if (tree) { // pairwise, merged summaries merged again
        List<SpaceSaving> level = summaries;
        while (level.size() > 1) {
          List<SpaceSaving> next = new ArrayList<>();
          for (int i = 0; i < level.size(); i += 2) {
            if (i + 1 < level.size()) {
              level.get(i).merge(level.get(i + 1));
            }
            next.add(level.get(i));
          }
          level = next;
        }
      } else {
        for (int p = 1; p < parts; p++) {
          summaries.getFirst().merge(summaries.get(p));
        }
      }
      SpaceSaving merged = summaries.getFirst();
      assertEquals(stream.length, merged.streamLength());
      checkSummary(merged, Streams.exact(stream, 0, stream.length), stream.length, k);
      // the merged summary goes on counting, still within the bounds of everything it has seen
      for (long key : stream) {
        merged.offer(key);
      }
      Map<Long, Long> twice = Streams.exact(stream, 0, stream.length);
      twice.replaceAll((key, count) -> 2 * count);
      checkSummary(merged, twice, 2L * stream.length, k);
    } finally {
      summaries.forEach(SpaceSaving::close);
    }
  }

  /** Every query's guarantees, and the bound on unmonitored keys, for a summary of {@code exact}. */
  private static void checkSummary(SpaceSaving summary, Map<Long, Long> exact, long length, int k) {
    int m = summary.counters();
    assertTrue(summary.unmonitoredBound() * (double) m <= length, "bound " + summary.unmonitoredBound()
        + " above N / m = " + length + " / " + m);
    TopK all = summary.topK(m);
    checkBounds(of(all.items()), exact, length, m);
    List<Long> monitored = all.items().stream().map(FrequentItem::key).toList();
    exact.forEach((key, count) -> {
      if (count > summary.unmonitoredBound()) {
        assertTrue(monitored.contains(key), key + " occurs " + count + " times, above the bound "
            + summary.unmonitoredBound() + ", and is not monitored");
      }
      assertTrue(summary.estimate(key) >= count, "estimate of " + key);
    });
    for (FrequentItem item : all.items()) {
      assertTrue(item.count() >= summary.unmonitoredBound(), "a count below the unmonitored bound: " + item);
    }

    TopK top = summary.topK(k);
    checkTopK(of(top.items()), k, exact, length, m);
    assertEquals(top.items().stream().allMatch(FrequentItem::guaranteed), top.guaranteed());
    long[] keys = new long[k];
    int n = summary.topKKeys(k, keys);
    assertEquals(top.items().stream().map(FrequentItem::key).toList(),
        java.util.Arrays.stream(keys, 0, n).boxed().toList());

    for (double phi : new double[] {1.0, 0.5, 0.1, 1.0 / m, 0.01, 0.001}) {
      FrequentElements frequent = summary.frequent(phi);
      if (phi >= 1.0 / m) {
        assertTrue(frequent.complete(), "support " + phi + " >= 1 / m must be complete");
      }
      checkFrequent(of(frequent.items()), phi, frequent.complete(), exact, length, m);
      long[] into = new long[m];
      assertEquals(frequent.items().size(), summary.frequentKeys(phi, into));
    }
  }
}
