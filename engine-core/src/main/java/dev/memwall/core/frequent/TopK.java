package dev.memwall.core.frequent;

import java.util.List;

/**
 * The answer to a top-k query: at most k monitored elements in descending count order.
 *
 * @param items the elements, largest count first
 * @param outsideBound the most the true count of any element not in {@code items} can be (the
 *     count of the next monitored element, or the summary's bound for unmonitored ones); an item is
 *     guaranteed when its {@linkplain FrequentItem#lowerBound lower bound} is at least this
 * @param guaranteed whether every item is guaranteed: {@code items} is then a correct top-k of the
 *     stream (Metwally, Agrawal and El Abbadi 2005's guarantee test)
 */
public record TopK(List<FrequentItem> items, long outsideBound, boolean guaranteed) {
  public TopK {
    items = List.copyOf(items);
  }
}
