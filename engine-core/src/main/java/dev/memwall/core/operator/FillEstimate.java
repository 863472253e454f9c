package dev.memwall.core.operator;

/**
 * How many distinct keys a stream has, judged from how a hash table filled: after {@code rows} rows
 * drawn uniformly from {@code d} distinct keys, a table holds {@code d (1 - e^(-rows/d))} groups in
 * expectation, so the groups a table reached tell {@code d} (the coupon collector's curve, as
 * Haas et al.'s sampling-based estimators of the number of distinct values use it). Skewed keys
 * make the estimate low (repeats of a few hot keys look like a small domain); callers bound what
 * they risk on it. Stateless.
 */
final class FillEstimate {
  private FillEstimate() {}

  /**
   * The distinct keys that would give {@code groups} groups after {@code rows} rows; positive
   * infinity when no key repeated ({@code groups >= rows}), which says only that there are many.
   */
  static double distinctKeys(long rows, long groups) {
    if (groups >= rows) {
      return Double.POSITIVE_INFINITY;
    }
    if (groups <= 0) {
      return 0;
    }
    // groups(d) = d (1 - e^(-rows/d)) rises from below `groups` at d = groups towards `rows`: bisect
    double low = groups;
    double high = groups;
    while (expectedGroups(rows, high) < groups) {
      high *= 2;
      if (high > 1e18) {
        return Double.POSITIVE_INFINITY;
      }
    }
    for (int i = 0; i < 60 && high - low > 0.5; i++) {
      double middle = (low + high) / 2;
      if (expectedGroups(rows, middle) < groups) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return high;
  }

  /** The groups expected after {@code rows} rows drawn uniformly from {@code distinct} keys. */
  static double expectedGroups(double rows, double distinct) {
    return distinct <= 0 ? 0 : -distinct * Math.expm1(-rows / distinct);
  }
}
