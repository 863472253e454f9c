package dev.memwall.substrait.optimizer;

/**
 * What the optimizer knows of one column's values: an estimate of its distinct non-null values,
 * its nulls, and for numbers and dates its smallest and largest value (as {@link
 * dev.memwall.core.vector.Column#getLong} gives them: unscaled decimals, days for dates; doubles
 * as they are), NaN where unknown or not a number.
 *
 * @param distinct distinct non-null values, at least 0
 * @param nulls null values, at least 0
 * @param scale the decimal scale {@code min} and {@code max} are unscaled by (0 for other types)
 */
public record ColumnStatistics(double distinct, double nulls, double min, double max, int scale) {
  public ColumnStatistics {
    if (!(distinct >= 0) || !(nulls >= 0)) {
      throw new IllegalArgumentException("distinct and null counts are at least 0: " + distinct + ", " + nulls);
    }
    if (min > max) {
      throw new IllegalArgumentException("min " + min + " is above max " + max);
    }
  }

  /** Statistics with only a distinct count: no nulls, no range. */
  public static ColumnStatistics distinct(double distinct) {
    return new ColumnStatistics(distinct, 0, Double.NaN, Double.NaN, 0);
  }

  /** Whether {@link #min} and {@link #max} are known. */
  public boolean hasRange() {
    return !Double.isNaN(min) && !Double.isNaN(max);
  }

  /** These statistics for a subset of the rows, {@code rows} of {@code from}, values kept uniformly. */
  ColumnStatistics scaled(double rows, double from) {
    if (rows >= from || from <= 0) {
      return this;
    }
    // the distinct values some row of a uniform sample keeps (Cardenas' formula)
    double kept = distinct <= 0 ? 0 : distinct * (1 - Math.pow(1 - rows / from, from / distinct));
    return new ColumnStatistics(Math.max(Math.min(kept, rows), rows > 0 && distinct > 0 ? 1 : 0),
        nulls * rows / from, min, max, scale);
  }
}
