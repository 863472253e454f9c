package dev.memwall.core.frequent;

import dev.memwall.core.memory.EngineMemory;
import java.util.ArrayList;
import java.util.List;

/**
 * A continuous top-k query (Das, Agrawal and El Abbadi 2008, Algorithm 5): the k monitored keys with
 * the largest counts, kept as the summary counts. Invariant after every element: the answer holds
 * {@code min(k, monitored)} counters and none outside it has a larger count than one inside; among
 * equal counts at the edge, the counters already in stay in.
 *
 * <p>Per element, with {@code low} the smallest count in the answer and {@code Set_k} the answer's
 * counters of that count (the {@linkplain MemberList low segment}): a counter in the answer that
 * goes up leaves {@code Set_k} if it was there; a counter outside that goes up from {@code low} to
 * {@code low + 1} takes the place of one counter of {@code Set_k}; when {@code Set_k} empties, the
 * counters of the incremented counter's new bucket, all in the answer, become it. Every step is
 * constant time but the last, which is paid for by the counters it moves. Bounds, thread safety and
 * ownership: {@link StandingQuery}.
 */
public final class StandingTopK extends StandingQuery {
  private final int k;

  StandingTopK(SpaceSaving owner, StreamSummary summary, EngineMemory memory, long chargedBytes, int k) {
    super(owner, summary, memory, chargedBytes);
    this.k = k;
  }

  /** The k asked for. */
  public int k() {
    return k;
  }

  @Override
  void counted(int counter) {
    long count = summary.count(counter);
    if (members.contains(counter)) {
      memberCounted(counter, count);
    } else if (members.size() < k) {
      enter(counter, count);
    } else if (k > 0 && count > low) {
      // up from low to low + 1: it takes the place of one counter of the lowest count
      members.remove(members.member(members.lowSize() - 1));
      members.add(counter);
      if (members.lowSize() == 0) {
        low = count;
        promoteBucket(summary.bucketOf(counter));
      }
    }
  }

  @Override
  void rebuild() {
    members.clear();
    int last = StreamSummary.NONE;
    walk:
    for (int b = summary.maxBucket(); b != StreamSummary.NONE; b = summary.smallerBucket(b)) {
      for (int c = summary.firstCounter(b); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
        if (members.size() == k) {
          break walk;
        }
        members.add(c);
        last = b;
      }
    }
    if (last != StreamSummary.NONE) {
      low = summary.bucketCount(last);
      for (int i = 0; i < members.size(); i++) {
        int c = members.member(i);
        if (summary.count(c) == low) {
          members.promote(c);
        }
      }
    }
  }

  /**
   * The answer as {@link SpaceSaving#topK} gives it: the items largest count first, each flagged
   * guaranteed when its lower bound reaches the largest count left out; among equal counts at the
   * edge its items may be other keys of that count than the walk's.
   */
  public TopK answer() {
    checkOpen();
    long outside = outsideBound();
    List<FrequentItem> items = new ArrayList<>(members.size());
    boolean all = true;
    for (int c : ordered()) {
      long count = summary.count(c);
      boolean guaranteed = count - summary.error(c) >= outside;
      all &= guaranteed;
      items.add(new FrequentItem(summary.key(c), count, summary.error(c), guaranteed));
    }
    return new TopK(items, outside, all);
  }

  /** The largest count outside the answer: a tie in the lowest bucket, else the bucket below it, else the bound on unmonitored keys. */
  private long outsideBound() {
    if (k == 0 && summary.maxBucket() != StreamSummary.NONE) {
      return summary.bucketCount(summary.maxBucket());
    }
    if (members.size() < k || members.lowSize() == 0) {
      return owner.unmonitoredBound();
    }
    int bucket = summary.bucketOf(members.member(0));
    int inBucket = 0;
    for (int c = summary.firstCounter(bucket); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
      if (++inBucket > members.lowSize()) {
        return low;
      }
    }
    int below = summary.smallerBucket(bucket);
    return below == StreamSummary.NONE ? owner.unmonitoredBound() : summary.bucketCount(below);
  }
}
