package dev.memwall.core.frequent;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/** Test streams of long keys (Zipf, uniform, one key, extremes) and their exact counts. */
public final class Streams {
  private Streams() {}

  /** How ranks become keys: small values, random longs, or the extremes of the type around 0 and the limits. */
  public enum Keys { SMALL, RANDOM, EXTREMES }

  /**
   * {@code length} keys over {@code distinct} ranks, rank r drawn with weight {@code 1 / r^skew}
   * (skew 0: uniform), mapped to keys by {@code keys}.
   */
  public static long[] zipf(int length, int distinct, double skew, Keys keys, long seed) {
    double[] cdf = new double[distinct];
    double total = 0;
    for (int r = 0; r < distinct; r++) {
      total += 1 / Math.pow(r + 1, skew);
      cdf[r] = total;
    }
    long[] mapping = new long[distinct];
    SplittableRandom random = new SplittableRandom(seed);
    for (int r = 0; r < distinct; r++) {
      mapping[r] = switch (keys) {
        case SMALL -> r;
        case RANDOM -> random.nextLong();
        case EXTREMES -> switch (r % 4) {
          case 0 -> Long.MIN_VALUE + r / 4;
          case 1 -> Long.MAX_VALUE - r / 4;
          case 2 -> -(r / 4) - 1;
          default -> r / 4;
        };
      };
    }
    long[] stream = new long[length];
    for (int i = 0; i < length; i++) {
      double u = random.nextDouble() * total;
      int low = 0;
      int high = distinct - 1;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (cdf[mid] > u) {
          high = mid;
        } else {
          low = mid + 1;
        }
      }
      stream[i] = mapping[low];
    }
    return stream;
  }

  /** The exact count of each key of {@code stream[from, to)}. */
  static Map<Long, Long> exact(long[] stream, int from, int to) {
    Map<Long, Long> counts = new HashMap<>();
    for (int i = from; i < to; i++) {
      counts.merge(stream[i], 1L, Long::sum);
    }
    return counts;
  }
}
