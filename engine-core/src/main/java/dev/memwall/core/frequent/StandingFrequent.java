package dev.memwall.core.frequent;

import dev.memwall.core.memory.EngineMemory;
import java.util.ArrayList;
import java.util.List;

/**
 * A continuous frequent-elements query with support {@code phi} (Das, Agrawal and El Abbadi 2008,
 * Algorithm 3): the monitored keys whose count exceeds {@code phi * N}, kept as the summary counts.
 * Invariant after every element: the answer holds exactly the counters whose count exceeds the
 * threshold, the same keys {@link SpaceSaving#frequent} reports.
 *
 * <p>Per element the threshold rises by {@code phi <= 1}, so only the counted key can enter (the
 * paper's Theorem 4.3) and only the answer's counters of its smallest count can leave, all together
 * (Theorem 4.1, Corollary 4.2): the query keeps those counters apart (the {@linkplain MemberList low
 * segment}) and, when they fall to the threshold, drops them and takes the next bucket up as the new
 * lowest. The paper keeps a pointer to that bucket; here the lowest counters are found through the
 * bucket of one of them, so the summary's reuse of bucket slots cannot leave a pointer dangling.
 * Bounds, thread safety and ownership: {@link StandingQuery}.
 */
public final class StandingFrequent extends StandingQuery {
  private final double phi;

  StandingFrequent(SpaceSaving owner, StreamSummary summary, EngineMemory memory, long chargedBytes, double phi) {
    super(owner, summary, memory, chargedBytes);
    this.phi = phi;
  }

  /** The support asked for. */
  public double phi() {
    return phi;
  }

  private double threshold() {
    return phi * (double) owner.streamLength();
  }

  @Override
  void counted(int counter) {
    long count = summary.count(counter);
    double threshold = threshold();
    if (members.contains(counter)) {
      memberCounted(counter, count);
    } else if (count > threshold) {
      enter(counter, count);
    }
    while (members.size() > 0 && low <= threshold) {
      int bucket = summary.bucketOf(members.member(0));
      members.removeLow();
      int above = summary.largerBucket(bucket);
      if (above != StreamSummary.NONE) {
        low = summary.bucketCount(above);
        promoteBucket(above);
      }
    }
  }

  @Override
  void rebuild() {
    members.clear();
    double threshold = threshold();
    int last = StreamSummary.NONE;
    for (int b = summary.maxBucket(); b != StreamSummary.NONE && summary.bucketCount(b) > threshold;
        b = summary.smallerBucket(b)) {
      for (int c = summary.firstCounter(b); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
        members.add(c);
      }
      last = b;
    }
    if (last != StreamSummary.NONE) {
      low = summary.bucketCount(last);
      promoteBucket(last);
    }
  }

  /**
   * The answer as {@link SpaceSaving#frequent} gives it: the same keys, largest count first (equal
   * counts by ascending key), each flagged guaranteed when its lower bound exceeds the threshold.
   */
  public FrequentElements answer() {
    checkOpen();
    double threshold = threshold();
    List<FrequentItem> items = new ArrayList<>(members.size());
    for (int c : ordered()) {
      long count = summary.count(c);
      items.add(new FrequentItem(summary.key(c), count, summary.error(c), count - summary.error(c) > threshold));
    }
    return new FrequentElements(items, threshold, owner.unmonitoredBound() <= threshold);
  }
}
