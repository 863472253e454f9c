package dev.memwall.bench;

import java.util.SplittableRandom;

/**
 * Draws ranks {@code 0..ranks-1} from a Zipf distribution: rank r with weight {@code 1 / (r + 1)^exponent},
 * by a binary search of the cumulative weights, for the benchmarks' skewed keys (join probes, frequent
 * elements). Thread safety: immutable; the caller's random generator carries the state.
 */
public final class ZipfRanks {
  private final double[] cdf;

  /**
   * @param exponent the skew; 0 draws every rank equally often
   */
  public ZipfRanks(int ranks, double exponent) {
    if (ranks < 1) {
      throw new IllegalArgumentException("a Zipf distribution needs at least one rank, got " + ranks);
    }
    cdf = new double[ranks];
    double sum = 0;
    for (int i = 0; i < ranks; i++) {
      sum += 1 / Math.pow(i + 1, exponent);
      cdf[i] = sum;
    }
  }

  /** The next rank, from one {@code nextDouble} of {@code random}. */
  public int next(SplittableRandom random) {
    double u = random.nextDouble() * cdf[cdf.length - 1];
    int lo = 0;
    int hi = cdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
