package dev.memwall.core.frequent;

/**
 * One monitored element of a {@link SpaceSaving} answer: its {@code key}, its estimated
 * {@code count} and the {@code error} of that estimate, so that its true count lies in
 * {@code [count - error, count]}.
 *
 * @param guaranteed for a {@linkplain SpaceSaving#topK top-k} answer: the element's true count is
 *     at least that of every element left out, so it belongs to the top k (ties broken either way);
 *     for a {@linkplain SpaceSaving#frequent frequent-elements} answer: its true count certainly
 *     exceeds the threshold
 */
public record FrequentItem(long key, long count, long error, boolean guaranteed) {
  /** The least the true count can be: {@code count - error}. */
  public long lowerBound() {
    return count - error;
  }
}
