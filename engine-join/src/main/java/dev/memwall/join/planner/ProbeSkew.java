package dev.memwall.join.planner;

import java.util.Arrays;
import java.util.Locale;

/**
 * How unevenly the probe side's keys repeat, estimated from a random sample of their join hashes:
 * the share of probe tuples whose key recurs within the sample (a "hot" key, at least about one
 * probe in {@link #SAMPLE}) and how many distinct hot keys the sample holds.
 *
 * <p>Seed 000's cost model assumes unique uniform keys. Under skew the hot keys' slots of a
 * non-partitioned hash table stay in the cache while the probe runs, so only the other probes
 * miss; partitioning gains nothing from skew (every tuple is still copied by every pass), as
 * workload A at Zipf 1.5 shows (docs/benchmarks/joins.md). The estimate is conservative: keys too rare to recur in the sample may also
 * stay cached, and they count as cold.
 *
 * <p>Uniform keys over a domain of D values recur in a sample of S with about S² / 2D pairs, so
 * the share stays near zero for the domains where the table does not fit the cache anyway; a probe
 * side drawing on a few thousand distinct keys counts as hot, and so it is: its slots are few.
 *
 * @param hotShare fraction of the sampled probe tuples whose key recurs in the sample, in [0, 1]
 * @param hotKeys distinct keys (hashes) recurring in the sample
 * @param sampled probe tuples sampled (0: no sample was taken, the model's uniform assumption)
 */
public record ProbeSkew(double hotShare, int hotKeys, int sampled) {
  /** Probe tuples a planner samples: recurring keys then have a frequency of about 1/4096 or more. */
  public static final int SAMPLE = 4096;

  /** No sample: the cost model's uniform assumption. */
  public static final ProbeSkew UNIFORM = new ProbeSkew(0, 0, 0);

  public ProbeSkew {
    if (!(hotShare >= 0 && hotShare <= 1) || hotKeys < 0 || sampled < 0 || hotKeys > sampled) {
      throw new IllegalArgumentException("bad probe skew: share " + hotShare + ", " + hotKeys + " hot keys of "
          + sampled + " sampled");
    }
  }

  /**
   * The estimate from sampled join hashes (equal keys have equal hashes; a collision of two
   * distinct keys in a sample of thousands is rare enough not to matter).
   *
   * @param hashes the sampled hashes; not modified
   */
  public static ProbeSkew of(long[] hashes) {
    if (hashes.length == 0) {
      return UNIFORM;
    }
    long[] sorted = hashes.clone();
    Arrays.sort(sorted);
    int hotTuples = 0;
    int hotKeys = 0;
    for (int start = 0; start < sorted.length; ) {
      int end = start + 1;
      while (end < sorted.length && sorted[end] == sorted[start]) {
        end++;
      }
      if (end - start > 1) {
        hotTuples += end - start;
        hotKeys++;
      }
      start = end;
    }
    return new ProbeSkew((double) hotTuples / sorted.length, hotKeys, sorted.length);
  }

  @Override
  public String toString() {
    return sampled == 0 ? "probe keys assumed uniform"
        : String.format(Locale.ROOT, "probe keys: %.1f%% on %d hot keys (sample of %d)", 100 * hotShare, hotKeys,
            sampled);
  }
}
