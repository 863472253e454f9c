package dev.memwall.core.frequent;

import dev.memwall.core.memory.EngineMemory;

/**
 * A continuous query of Das, Agrawal and El Abbadi 2008 (Section 4.3): an answer that a {@link
 * SpaceSaving} summary keeps up to date as each element arrives, instead of finding it again by a
 * walk of the buckets at every query. The answer is a set of counters ({@link MemberList}), so
 * asking whether a key is in it takes constant time and reading it copies its keys; the summary
 * tells the query which counter each element changed, and the query moves at most that counter in
 * and, at its lower edge, the counters that the element pushed out.
 *
 * <p>When to use it: a standing answer costs a little on every element and saves the walk at every
 * query, so it pays under a query load (the paper's 10 to 50% of the operations being queries); a
 * query asked rarely is cheaper as {@link SpaceSaving#topK} or {@link SpaceSaving#frequent}, the
 * paper's interval queries.
 *
 * <p>Ownership: the summary that created the query feeds it; its two arrays are charged to that
 * summary's memory until {@link #close}, which the summary's own close also does. Thread safety: the
 * summary's one writer. After {@link SpaceSaving#merge} the answer is built again from the merged
 * counters. Use after close throws {@link IllegalStateException}.
 */
public abstract sealed class StandingQuery implements AutoCloseable permits StandingTopK, StandingFrequent {
  final SpaceSaving owner;
  final StreamSummary summary;
  final MemberList members;
  private final EngineMemory memory;
  private final long chargedBytes;
  private boolean closed;
  /** The smallest count in the answer (that of its low segment), while the answer is not empty. */
  long low;

  StandingQuery(SpaceSaving owner, StreamSummary summary, EngineMemory memory, long chargedBytes) {
    this.owner = owner;
    this.summary = summary;
    this.memory = memory;
    this.chargedBytes = chargedBytes;
    this.members = new MemberList(owner.counters());
  }

  /** The bytes a standing query on a summary of {@code counters} counters charges. */
  static long bytesFor(int counters) {
    return MemberList.bytesFor(counters);
  }

  /**
   * Brings the answer up to date after the summary counted an element, which added one to
   * {@code counter}'s count (a counter just given to a new key included) and to the stream's length.
   */
  abstract void counted(int counter);

  /** Builds the answer from the summary's counters, discarding the one kept: after a merge, and at creation. */
  abstract void rebuild();

  /** How many keys the answer holds now. */
  public int size() {
    checkOpen();
    return members.size();
  }

  /** Whether {@code key} is in the answer now. */
  public boolean contains(long key) {
    checkOpen();
    int counter = owner.counterOf(key);
    return counter >= 0 && members.contains(counter);
  }

  /**
   * The answer's keys, in no particular order, into {@code into}; returns how many there are (only
   * the first {@code into.length} are written). Allocates nothing and walks no bucket.
   */
  public int keys(long[] into) {
    checkOpen();
    int n = members.size();
    for (int i = 0; i < Math.min(n, into.length); i++) {
      into[i] = summary.key(members.member(i));
    }
    return n;
  }

  /**
   * Keeps the low segment after {@code counter}, in the answer, went up to {@code count}: it leaves
   * the segment if it was there, and an emptied segment takes the counter's new bucket, all of whose
   * counters are in the answer (none outside it had more than the old lowest count).
   */
  void memberCounted(int counter, long count) {
    if (members.inLow(counter)) {
      members.demote(counter);
      if (members.lowSize() == 0) {
        low = count;
        promoteBucket(summary.bucketOf(counter));
      }
    }
  }

  /**
   * Puts {@code counter}, of {@code count}, into the answer: as the new lowest when the answer is
   * empty or every count in it is larger, into the low segment when it ties the lowest, above it
   * otherwise.
   */
  void enter(int counter, long count) {
    if (members.size() == 0 || count < low) {
      members.resetLow();
      low = count;
      members.add(counter);
      members.promote(counter);
    } else {
      members.add(counter);
      if (count == low) {
        members.promote(counter);
      }
    }
  }

  /** The answer's counters, largest count first (equal counts by ascending key), for a full answer's items. */
  int[] ordered() {
    int n = members.size();
    long[] counts = new long[n];
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      counts[i] = summary.count(members.member(i));
      keys[i] = summary.key(members.member(i));
    }
    int[] order = CountOrder.descending(counts, keys, n);
    for (int i = 0; i < n; i++) {
      order[i] = members.member(order[i]);
    }
    return order;
  }

  /** Puts every counter of {@code bucket}, all of them members outside the low segment, into the low segment. */
  void promoteBucket(int bucket) {
    for (int c = summary.firstCounter(bucket); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
      members.promote(c);
    }
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this standing query is closed");
    }
  }

  /** Stops keeping the answer and releases its arrays. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      owner.detach(this);
      memory.releaseHeap(chargedBytes);
    }
  }
}
