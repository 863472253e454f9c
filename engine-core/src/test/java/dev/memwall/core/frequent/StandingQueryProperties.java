package dev.memwall.core.frequent;

import static dev.memwall.core.frequent.Guarantees.checkFrequent;
import static dev.memwall.core.frequent.Guarantees.checkTopK;
import static dev.memwall.core.frequent.Guarantees.of;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The standing (continuous) answers against the walk that recomputes them, after every element:
 * Zipf streams of skew 0 to 2, one key, keys at the limits of long, one and two counters, k of 0, 1,
 * above the counters; supports from the tiniest to 1; queries started mid-stream and summaries
 * merged under them. Also their memory, close and bad input.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class StandingQueryProperties {

  record Case(long[] stream, int counters, int k, double phi, int startAt, String shape) {
    @Override
    public String toString() {
      return shape + ", " + stream.length + " keys, " + counters + " counters, top " + k + ", phi " + phi
          + ", standing from " + startAt;
    }
  }

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Integer> lengths = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(0, 1, 2)),
        Tuple.of(6, Arbitraries.integers().between(3, 3_000)));
    Arbitrary<Integer> distinct = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(1)),
        Tuple.of(6, Arbitraries.integers().between(2, 2_000)));
    Arbitrary<Double> skew = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0.0)),
        Tuple.of(5, Arbitraries.doubles().between(0.5, 2.0)));
    Arbitrary<Integer> counters = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(1, 2)),
        Tuple.of(6, Arbitraries.integers().between(3, 200)));
    Arbitrary<Integer> k = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(0, 1, 250)),
        Tuple.of(6, Arbitraries.integers().between(2, 40)));
    Arbitrary<Double> phi = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(1.0, 0.5, 1e-9)),
        Tuple.of(6, Arbitraries.doubles().between(0.001, 0.3).ofScale(5)));
    Arbitrary<Double> start = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(0.0)),
        Tuple.of(1, Arbitraries.doubles().between(0, 1)));
    return Combinators.combine(lengths, distinct, skew, Arbitraries.of(Streams.Keys.class), counters, k, phi,
            Combinators.combine(start, Arbitraries.longs()).as(Tuple::of))
        .as((length, d, s, keys, m, top, support, startAndSeed) -> new Case(
            Streams.zipf(length, d, s, keys, startAndSeed.get2()), m, top, support,
            (int) (startAndSeed.get1() * length), "zipf " + s + " over " + d + " " + keys + " keys"));
  }

  @Property(tries = 120)
  void standingAnswersAreTheWalksAfterEveryElement(@ForAll("cases") Case c, EngineMemory memory) {
    long[] stream = c.stream();
    Map<Long, Long> exact = new HashMap<>();
    try (SpaceSaving summary = SpaceSaving.create(memory, c.counters())) {
      for (int i = 0; i < c.startAt(); i++) {
        summary.offer(stream[i]);
        exact.merge(stream[i], 1L, Long::sum);
      }
      StandingTopK top = summary.standingTopK(c.k());
      StandingFrequent frequent = summary.standingFrequent(c.phi());
      compare(summary, top, frequent);
      for (int i = c.startAt(); i < stream.length; i++) {
        summary.offer(stream[i]);
        exact.merge(stream[i], 1L, Long::sum);
        compareKeys(summary, top, frequent);
        if (i % 41 == 0 || i == stream.length - 1) {
          compare(summary, top, frequent);
          checkTopK(of(top.answer().items()), c.k(), exact, i + 1, c.counters());
          FrequentElements answer = frequent.answer();
          checkFrequent(of(answer.items()), c.phi(), answer.complete(), exact, i + 1, c.counters());
        }
      }
    }
  }

  @Property(tries = 40)
  void aMergeUnderStandingQueriesRebuildsThem(@ForAll("cases") Case c, @ForAll @IntRange(min = 0, max = 100) int cut,
      EngineMemory memory) {
    long[] stream = c.stream();
    int split = (int) ((long) stream.length * cut / 100);
    try (SpaceSaving left = SpaceSaving.create(memory, c.counters());
        SpaceSaving right = SpaceSaving.create(memory, c.counters())) {
      StandingTopK top = left.standingTopK(c.k());
      StandingFrequent frequent = left.standingFrequent(c.phi());
      StandingTopK rightTop = right.standingTopK(c.k());
      left.offer(stream, 0, split / 2);
      right.offer(stream, split / 2, split - split / 2);
      left.merge(right);
      compare(left, top, frequent);
      compare(right, rightTop, right.standingFrequent(c.phi()));
      for (int i = split; i < stream.length; i++) {
        left.offer(stream[i]);
        compareKeys(left, top, frequent);
      }
      compare(left, top, frequent);
      Map<Long, Long> exact = Streams.exact(stream, 0, stream.length);
      checkTopK(of(top.answer().items()), c.k(), exact, stream.length, c.counters());
    }
  }

  /** The keys of both standing answers against the walks' keys, and membership for each monitored key. */
  private static void compareKeys(SpaceSaving summary, StandingTopK top, StandingFrequent frequent) {
    long[] walked = new long[summary.counters()];
    long[] kept = new long[summary.counters()];
    int n = summary.frequentKeys(frequent.phi(), walked);
    assertEquals(n, frequent.keys(kept), "frequent answer's size");
    assertEquals(n, frequent.size());
    Arrays.sort(walked, 0, n);
    Arrays.sort(kept, 0, n);
    assertArrayEquals(Arrays.copyOf(walked, n), Arrays.copyOf(kept, n), "frequent keys");
    int t = summary.topKKeys(top.k(), walked);
    assertEquals(t, top.keys(kept), "top-k size");
    assertEquals(t, top.size());
    // equal counts at the edge may be other keys: the counts must agree
    long[] walkedCounts = new long[t];
    long[] keptCounts = new long[t];
    for (int i = 0; i < t; i++) {
      walkedCounts[i] = summary.estimate(walked[i]);
      keptCounts[i] = summary.estimate(kept[i]);
      assertTrue(top.contains(kept[i]));
    }
    Arrays.sort(walkedCounts);
    Arrays.sort(keptCounts);
    assertArrayEquals(walkedCounts, keptCounts, "top-k counts");
  }

  /** The full answers against the walks': the same items (by count at the top-k's edge), bounds and flags. */
  private static void compare(SpaceSaving summary, StandingTopK top, StandingFrequent frequent) {
    compareKeys(summary, top, frequent);
    FrequentElements walked = summary.frequent(frequent.phi());
    FrequentElements kept = frequent.answer();
    assertEquals(new HashSet<>(walked.items()), new HashSet<>(kept.items()));
    assertEquals(walked.threshold(), kept.threshold());
    assertEquals(walked.complete(), kept.complete());
    assertDescending(kept.items());
    TopK walkedTop = summary.topK(top.k());
    TopK keptTop = top.answer();
    assertEquals(walkedTop.outsideBound(), keptTop.outsideBound(), "the largest count left out");
    assertEquals(walkedTop.items().stream().map(FrequentItem::count).toList(),
        keptTop.items().stream().map(FrequentItem::count).toList());
    assertDescending(keptTop.items());
    long[] all = new long[summary.counters()];
    int monitored = summary.topKKeys(summary.counters(), all);
    for (int i = 0; i < monitored; i++) {
      long key = all[i];
      assertEquals(keptTop.items().stream().anyMatch(item -> item.key() == key), top.contains(key),
          "whether the top-k holds " + key);
      assertEquals(kept.items().stream().anyMatch(item -> item.key() == key), frequent.contains(key),
          "whether the frequent elements hold " + key);
    }
  }

  private static void assertDescending(List<FrequentItem> items) {
    for (int i = 1; i < items.size(); i++) {
      assertTrue(items.get(i - 1).count() >= items.get(i).count(), "not descending at " + i + ": " + items);
    }
  }

  @Example
  void aStandingQueryIsChargedRefusedByNameAndClosedWithItsSummary() {
    long summaryBytes = SpaceSaving.bytesFor(50);
    long queryBytes = StandingQuery.bytesFor(50);
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("standing", summaryBytes + queryBytes))) {
      SpaceSaving summary = SpaceSaving.create(memory, 50);
      StandingTopK top = summary.standingTopK(3);
      assertEquals(summaryBytes + queryBytes, memory.allocatedBytes());
      var e = assertThrows(BudgetExceededException.class, () -> summary.standingFrequent(0.1));
      assertEquals(SpaceSaving.OPERATOR, e.operator());
      summary.offer(new long[] {7, 7, 8}, 0, 3);
      assertTrue(top.contains(7) && top.contains(8) && !top.contains(9));
      top.close();
      top.close();
      assertEquals(summaryBytes, memory.allocatedBytes(), "a closed query gives its arrays back");
      assertThrows(IllegalStateException.class, top::size);
      summary.offer(9); // a closed query is told nothing
      StandingFrequent frequent = summary.standingFrequent(0.3); // 7 of 7, 7, 8, 9 is above 1.2
      assertEquals(1, frequent.size());
      summary.close();
      assertEquals(0, memory.allocatedBytes(), "the summary's close closes its standing queries");
      assertThrows(IllegalStateException.class, () -> frequent.keys(new long[2]));
      assertThrows(IllegalStateException.class, () -> summary.standingTopK(1));
    }
  }

  @Example
  void badArgumentsAreRefused(EngineMemory memory) {
    try (SpaceSaving summary = SpaceSaving.create(memory, 10)) {
      assertThrows(IllegalArgumentException.class, () -> summary.standingTopK(-1));
      assertThrows(IllegalArgumentException.class, () -> summary.standingFrequent(0));
      assertThrows(IllegalArgumentException.class, () -> summary.standingFrequent(1.5));
      assertThrows(IllegalArgumentException.class, () -> summary.standingFrequent(Double.NaN));
      assertEquals(0, memory.allocatedBytes() - SpaceSaving.bytesFor(10), "refused queries charge nothing");
    }
  }

  @Example
  void stringsKeepStandingAnswersByTheirHashes(EngineMemory memory) {
    try (StringSpaceSaving strings = StringSpaceSaving.create(memory, 4)) {
      StandingTopK top = strings.summary().standingTopK(2);
      StandingFrequent frequent = strings.summary().standingFrequent(0.3);
      for (String s : List.of("a", "b", "a", "c", "d", "e", "a", "f", "a", "g")) {
        strings.offer(s);
      }
      long[] keys = new long[4];
      assertEquals(1, frequent.keys(keys));
      assertEquals("a", strings.value(keys[0]));
      assertEquals("a", strings.value(top.answer().items().getFirst().key()));
      assertFalse(frequent.contains(keys[0] + 1));
    }
  }
}
