package dev.memwall.core.frequent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a top-k or frequent-elements answer against exact counts, whatever produced it (a summary,
 * a merge of summaries, a plan's rows): the answers' own flags, never a fixed expectation.
 */
public final class Guarantees {
  private Guarantees() {}

  /** One reported element, by a key of any type. */
  public record Reported<K>(K key, long count, long error, boolean guaranteed) {}

  /** The bounds every reported element keeps: true count within [count - error, count], error at most N / m. */
  static <K> void checkBounds(List<Reported<K>> reported, Map<K, Long> exact, long length, int counters) {
    long previous = Long.MAX_VALUE;
    Set<K> seen = new HashSet<>();
    for (Reported<K> item : reported) {
      long truth = exact.getOrDefault(item.key(), 0L);
      assertTrue(seen.add(item.key()), "reported twice: " + item);
      assertTrue(item.count() - item.error() <= truth && truth <= item.count(),
          item + " but its true count is " + truth);
      assertTrue(item.error() >= 0 && item.error() * (double) counters <= length,
          item + " has an error above N / m = " + length + " / " + counters);
      assertTrue(item.count() <= previous, "not in descending count order at " + item);
      previous = item.count();
    }
  }

  /**
   * A top-k answer: the bounds; as many elements as k, the counters and the distinct keys allow; every
   * guaranteed element's true count at least that of every element left out.
   */
  public static <K> void checkTopK(List<Reported<K>> reported, int k, Map<K, Long> exact, long length, int counters) {
    checkBounds(reported, exact, length, counters);
    assertEquals(Math.min(k, Math.min(counters, exact.size())), reported.size(), "top-" + k + " size");
    Set<K> in = new HashSet<>();
    reported.forEach(item -> in.add(item.key()));
    long outside = exact.entrySet().stream().filter(e -> !in.contains(e.getKey())).mapToLong(Map.Entry::getValue)
        .max().orElse(0);
    for (Reported<K> item : reported) {
      if (item.guaranteed()) {
        assertTrue(exact.get(item.key()) >= outside, item + " is flagged guaranteed, but an element left out occurs "
            + outside + " times");
      }
    }
  }

  /**
   * A frequent-elements answer for support {@code phi}: the bounds; every reported count above
   * {@code phi * N}; every guaranteed element truly above it; when {@code complete}, no element above
   * it missing.
   */
  public static <K> void checkFrequent(List<Reported<K>> reported, double phi, boolean complete, Map<K, Long> exact,
      long length, int counters) {
    checkBounds(reported, exact, length, counters);
    double threshold = phi * length;
    Set<K> in = new HashSet<>();
    for (Reported<K> item : reported) {
      in.add(item.key());
      assertTrue(item.count() > threshold, item + " reported at or below " + threshold);
      if (item.guaranteed()) {
        assertTrue(exact.get(item.key()) > threshold, item + " flagged guaranteed, true count "
            + exact.get(item.key()) + " at or below " + threshold);
      }
    }
    if (complete) {
      exact.forEach((key, count) -> assertTrue(count <= threshold || in.contains(key),
          "missed " + key + " occurring " + count + " times, above " + threshold));
    }
  }

  /** The items of a summary's answer as reported elements. */
  static List<Reported<Long>> of(List<FrequentItem> items) {
    return items.stream().map(i -> new Reported<>(i.key(), i.count(), i.error(), i.guaranteed())).toList();
  }
}
