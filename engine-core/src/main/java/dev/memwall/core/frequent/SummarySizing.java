package dev.memwall.core.frequent;

import dev.memwall.core.machine.MachineProfile;

/**
 * How many counters a {@link SpaceSaving} summary has and how many slots its monitored-element
 * lookup ({@link CounterIndex}) has, chosen against a {@link MachineProfile} so that the lookup,
 * which every element of the stream probes, stays in one cache level: the software stand-in for the
 * CAM of Das, Agrawal and El Abbadi 2008, which held the monitored elements beside the processor.
 * The buckets ({@link StreamSummary}, about 48 bytes a counter) are not fitted; they play the
 * paper's SRAM, touched once per element after the lookup.
 *
 * <p><b>The rule.</b> Each of the profile's {@linkplain MachineProfile#fastDataCaches fast data
 * caches} offers the lookup half of its {@linkplain MachineProfile.MeasuredCache#usableBytes usable
 * bytes} (the other half is for the rows streaming through and the buckets). The lookup goes to the
 * smallest level whose share holds its least table (16 bytes a slot, twice as many slots as
 * counters: at most half full). {@link #forCounters} keeps the counters asked for and spends the
 * rest of that share on more slots, down to a load of one eighth, so fewer probes run past the home
 * slot; {@link #atLeast} instead spends it on more counters at a load of one half, so the errors
 * (at most N / counters) shrink at no cost in cache level.
 *
 * <p><b>When the error bound needs more counters than fit.</b> Accuracy is the contract and the
 * cache only speed, so the summary always gets the counters its bound asks for: when their least
 * lookup exceeds the share of the last fast level, it is laid out at load one half anyway, {@link
 * #cacheLevel} is 0, and each element's probe may miss to memory (about T1 of the profile instead
 * of a cache hit), which is what {@link #describe} then says.
 *
 * <p>Thread safety: an immutable value. Bad input: counters outside 1 to {@link
 * SpaceSaving#MAX_COUNTERS} throw {@link IllegalArgumentException}.
 *
 * @param counters the summary's capacity m
 * @param slots the lookup's slots: a power of two, at least twice {@code counters}
 * @param cacheLevel the level (1 for L1d) whose share holds the lookup, or 0 when none does (or no
 *     profile was consulted)
 * @param shareBytes the bytes of that level offered to the lookup; 0 with level 0
 */
public record SummarySizing(int counters, int slots, int cacheLevel, long shareBytes) {
  /** How many times the least table {@link #forCounters} may grow: a load down to one eighth. */
  static final int MAX_SPREAD = 4;

  public SummarySizing {
    checkCounters(counters);
    if (Integer.bitCount(slots) != 1 || slots < CounterIndex.slotsFor(counters)) {
      throw new IllegalArgumentException("a lookup for " + counters + " counters needs a power of two of at least "
          + CounterIndex.slotsFor(counters) + " slots, got " + slots);
    }
  }

  /** {@code counters} counters with the least lookup, consulting no profile (level 0). */
  public static SummarySizing unfitted(int counters) {
    checkCounters(counters);
    return new SummarySizing(counters, CounterIndex.slotsFor(counters), 0, 0);
  }

  /**
   * Exactly {@code counters} counters, the lookup in the smallest fast level of {@code profile}
   * whose share holds its least table, with as many more slots as that share holds (up to
   * {@value #MAX_SPREAD} times the least table); the least lookup at level 0 when no level holds it.
   */
  public static SummarySizing forCounters(MachineProfile profile, int counters) {
    checkCounters(counters);
    int least = CounterIndex.slotsFor(counters);
    for (MachineProfile.MeasuredCache cache : profile.fastDataCaches()) {
      long share = share(cache);
      if (CounterIndex.bytesForSlots(least) <= share) {
        long most = Math.min(share / CounterIndex.SLOT_BYTES, (long) MAX_SPREAD * least);
        int slots = (int) Long.highestOneBit(Math.max(least, most));
        return new SummarySizing(counters, slots, cache.cache().level(), share);
      }
    }
    return unfitted(counters);
  }

  /**
   * At least {@code minimum} counters: as many as the share of the smallest fast level of
   * {@code profile} that holds the least lookup for {@code minimum} takes at a load of one half
   * (at most {@link SpaceSaving#MAX_COUNTERS}); exactly {@code minimum}, at level 0, when no level
   * holds that lookup.
   */
  public static SummarySizing atLeast(MachineProfile profile, int minimum) {
    SummarySizing fitted = forCounters(profile, minimum);
    if (fitted.cacheLevel() == 0) {
      return fitted;
    }
    long slots = Long.highestOneBit(fitted.shareBytes() / CounterIndex.SLOT_BYTES);
    int counters = (int) Math.min(SpaceSaving.MAX_COUNTERS, Math.max(minimum, slots / 2));
    return new SummarySizing(counters, CounterIndex.slotsFor(counters), fitted.cacheLevel(), fitted.shareBytes());
  }

  /** The bytes the lookup takes. */
  public long lookupBytes() {
    return CounterIndex.bytesForSlots(slots);
  }

  /** A phrase for a plan's explanation: the counters and where the lookup lives. */
  public String describe() {
    return counters + " counters, lookup of " + slots + " slots (" + (lookupBytes() >> 10) + " KiB) "
        + (cacheLevel == 0 ? "fitted to no cache level" : "within half of L" + cacheLevel);
  }

  /** The share of {@code cache} offered to the lookup: half its usable bytes. */
  private static long share(MachineProfile.MeasuredCache cache) {
    return cache.usableBytes() / 2;
  }

  private static void checkCounters(int counters) {
    if (counters < 1 || counters > SpaceSaving.MAX_COUNTERS) {
      throw new IllegalArgumentException("a Space-Saving summary needs 1 to " + SpaceSaving.MAX_COUNTERS
          + " counters, got " + counters);
    }
  }
}
