package dev.memwall.core.frequent;

import java.util.List;

/**
 * The answer to a frequent-elements query with support {@code phi}: the monitored elements whose
 * count exceeds {@code phi * N}, in descending count order.
 *
 * @param items the elements, largest count first; those whose true count certainly exceeds the
 *     threshold are {@linkplain FrequentItem#guaranteed guaranteed}, the others may be false positives
 * @param threshold {@code phi * N}, in double precision
 * @param complete whether no element missing from {@code items} can exceed the threshold: true when
 *     the summary's bound on unmonitored elements is at most the threshold, always so when
 *     {@code phi >= 1 / counters}
 */
public record FrequentElements(List<FrequentItem> items, double threshold, boolean complete) {
  public FrequentElements {
    items = List.copyOf(items);
  }
}
