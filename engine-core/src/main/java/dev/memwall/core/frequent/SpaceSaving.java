package dev.memwall.core.frequent;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * Space-Saving (Metwally, Agrawal and El Abbadi 2005) over a stream of long keys, with its counters
 * in a {@link StreamSummary} and the monitored keys in a {@link CounterIndex}, answering top-k and
 * frequent-elements queries on the same stream at any time (the integrated scheme of Das, Agrawal and
 * El Abbadi 2008). INT64, INT32, DATE and TIMESTAMP values and dictionary codes all count as longs;
 * strings are counted by {@link StringSpaceSaving}.
 *
 * <p>Guarantees, for a stream of {@link #streamLength N} keys and {@link #counters m} counters: every
 * monitored key's true count lies in {@code [count - error, count]}; no unmonitored key occurs more
 * than {@link #unmonitoredBound} {@code <= N / m} times, so every key occurring more than
 * {@code N / m} times is monitored; every error is at most {@code N / m} too. The same holds after
 * {@link #merge}, for the merged stream's length.
 *
 * <p>Continuous queries: {@link #topK} and {@link #frequent} walk the buckets from the largest count
 * down at each call (the paper's interval queries); {@link #standingTopK} and {@link
 * #standingFrequent} instead keep an answer up to date with every element (its continuous queries),
 * which pays when queries come often.
 *
 * <p>Memory: the arrays are on the heap, sized by {@code m} once ({@link #bytesFor}), and charged to
 * the {@link EngineMemory} the summary was created from until {@link #close}; so are a standing
 * query's. Thread safety: one
 * writer; queries read the same state, so they run on the writer's thread or after it has stopped
 * (one summary per worker, {@link #merge merged} at the end, is the parallel form). Bad input: any
 * long is a key; a capacity below 1 or above {@link #MAX_COUNTERS}, an error bound outside (0, 1],
 * a k below 0, a phi outside (0, 1], merging summaries of different capacities or one into itself
 * throw {@link IllegalArgumentException}; use after close throws {@link IllegalStateException}.
 */
public final class SpaceSaving implements AutoCloseable {
  /** The most counters a summary may have. */
  public static final int MAX_COUNTERS = 1 << 26;
  /** The operator's name in a refused budget's message. */
  public static final String OPERATOR = "space-saving summary";

  private final EngineMemory memory;
  private final SummarySizing sizing;
  private final int capacity;
  private final long chargedBytes;
  private final StreamSummary summary;
  private final CounterIndex index;
  /** The continuous queries this summary keeps answered, told of every counted element. */
  private StandingQuery[] standing = new StandingQuery[0];
  private long streamLength;
  /** The most an unmonitored key can occur; never above every monitored count. */
  private long unmonitoredBound;
  private boolean closed;

  private SpaceSaving(EngineMemory memory, SummarySizing sizing, long chargedBytes) {
    this.memory = memory;
    this.sizing = sizing;
    this.capacity = sizing.counters();
    this.chargedBytes = chargedBytes;
    this.summary = new StreamSummary(capacity);
    this.index = new CounterIndex(sizing.slots());
  }

  /**
   * An empty summary of {@code counters} counters with the least lookup ({@link
   * SummarySizing#unfitted}), its arrays charged to {@code memory}.
   *
   * @throws BudgetExceededException if the budget cannot hold {@link #bytesFor} the counters
   */
  public static SpaceSaving create(EngineMemory memory, int counters) {
    if (counters < 1 || counters > MAX_COUNTERS) {
      throw new IllegalArgumentException("a Space-Saving summary needs 1 to " + MAX_COUNTERS + " counters, got "
          + counters);
    }
    return create(memory, SummarySizing.unfitted(counters));
  }

  /**
   * An empty summary laid out as {@code sizing} says (its counters, and its lookup's slots fitted to
   * a cache level of a machine profile), its arrays charged to {@code memory}.
   *
   * @throws BudgetExceededException if the budget cannot hold {@link #bytesFor(SummarySizing)}
   */
  public static SpaceSaving create(EngineMemory memory, SummarySizing sizing) {
    long bytes = bytesFor(sizing);
    try {
      memory.reserveHeap(bytes);
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "create", "choose fewer counters (a larger error bound) or give the query more memory");
    }
    try {
      return new SpaceSaving(memory, sizing, bytes);
    } catch (RuntimeException | Error e) {
      memory.releaseHeap(bytes);
      throw e;
    }
  }

  /**
   * An empty summary whose errors stay within {@code epsilon * N}: {@code ceil(1 / epsilon)}
   * counters.
   */
  public static SpaceSaving forError(EngineMemory memory, double epsilon) {
    return create(memory, countersFor(epsilon));
  }

  /** The counters that bound every error by {@code epsilon * N}: {@code ceil(1 / epsilon)}. */
  public static int countersFor(double epsilon) {
    if (!(epsilon > 0 && epsilon <= 1)) {
      throw new IllegalArgumentException("the error bound must lie in (0, 1], got " + epsilon);
    }
    double counters = Math.ceil(1 / epsilon);
    if (counters > MAX_COUNTERS) {
      throw new IllegalArgumentException("an error bound of " + epsilon + " needs " + (long) counters
          + " counters, more than " + MAX_COUNTERS);
    }
    return (int) counters;
  }

  /**
   * The heap a summary of {@code counters} counters holds (and charges): about 100 bytes a counter,
   * so a caller can size it to stay within a cache level, as the paper's CAM held its elements.
   */
  public static long bytesFor(int counters) {
    return bytesFor(SummarySizing.unfitted(counters));
  }

  /** The heap a summary laid out as {@code sizing} holds (and charges). */
  public static long bytesFor(SummarySizing sizing) {
    return StreamSummary.bytesFor(sizing.counters()) + sizing.lookupBytes();
  }

  /** Counts one occurrence of {@code key}. */
  public void offer(long key) {
    offerCounter(key);
  }

  /** Counts {@code keys[from, from + count)}, in order. */
  public void offer(long[] keys, int from, int count) {
    Objects.checkFromIndexSize(from, count, keys.length);
    for (int i = from; i < from + count; i++) {
      offerCounter(keys[i]);
    }
  }

  /**
   * Counts every non-null value of {@code column}: an integral column's values (INT64, INT32, DATE,
   * TIMESTAMP, BOOLEAN, a DECIMAL's unscaled values) or a dictionary column's codes, which identify
   * strings only under one dictionary ({@link StringSpaceSaving} counts the strings themselves).
   *
   * @throws IllegalArgumentException for a FLOAT64 or plain string column
   */
  public void offerAll(Column column) {
    if (!column.type().isIntegral() && !(column instanceof DictionaryColumn)) {
      throw new IllegalArgumentException("column '" + column.name() + "' of type " + column.type()
          + " has no long keys; count " + ColumnType.Kind.STRING + " values with StringSpaceSaving");
    }
    int rows = column.length();
    boolean nulls = column.hasNulls();
    for (int row = 0; row < rows; row++) {
      if (!nulls || !column.isNull(row)) {
        offerCounter(column.getLong(row));
      }
    }
  }

  /**
   * Counts {@code key} and returns its counter: {@code counter} when the key was monitored already,
   * {@code ~counter} (negative) when it has just taken the counter over.
   */
  int offerCounter(long key) {
    int counter = offerIfMonitored(key);
    return counter >= 0 ? counter : ~offerUnmonitored(key);
  }

  /**
   * Counts {@code key} if it is monitored and returns its counter; otherwise counts nothing and
   * returns -1, so that a caller keeping a value per counter ({@link StringSpaceSaving}) can make
   * room for the value before {@link #offerUnmonitored} gives the key a counter.
   */
  int offerIfMonitored(long key) {
    if (closed) {
      throw closedException();
    }
    int counter = index.get(key);
    if (counter >= 0) {
      streamLength++;
      summary.increment(counter);
      if (standing.length != 0) {
        tellStanding(counter);
      }
    }
    return counter;
  }

  /** Counts {@code key}, which is not monitored, giving it a free counter or the minimum one; returns the counter. */
  int offerUnmonitored(long key) {
    streamLength++;
    int counter;
    if (!summary.full()) {
      counter = summary.add(key, unmonitoredBound + 1, unmonitoredBound);
    } else {
      counter = summary.minCounter();
      long min = summary.count(counter);
      index.remove(summary.key(counter));
      unmonitoredBound = min; // the evicted key occurred at most min times
      summary.rekey(counter, key, min);
      summary.increment(counter);
    }
    index.put(key, counter);
    if (standing.length != 0) {
      tellStanding(counter);
    }
    return counter;
  }

  private void tellStanding(int counter) {
    for (StandingQuery query : standing) {
      query.counted(counter);
    }
  }

  /**
   * A continuous top-{@code k} query on this summary ({@link StandingTopK}): its answer is kept up to
   * date with every element counted from now on (and built again after each {@link #merge}), its
   * arrays charged to this summary's memory until it or this summary is closed.
   *
   * @throws BudgetExceededException if the budget cannot hold 8 bytes a counter
   */
  public StandingTopK standingTopK(int k) {
    checkOpen();
    if (k < 0) {
      throw new IllegalArgumentException("k must be >= 0, got " + k);
    }
    return attach(bytes -> new StandingTopK(this, summary, memory, bytes, k));
  }

  /**
   * A continuous frequent-elements query with support {@code phi} on this summary ({@link
   * StandingFrequent}), kept up to date as {@link #standingTopK} is.
   *
   * @throws BudgetExceededException if the budget cannot hold 8 bytes a counter
   */
  public StandingFrequent standingFrequent(double phi) {
    checkOpen();
    threshold(phi);
    return attach(bytes -> new StandingFrequent(this, summary, memory, bytes, phi));
  }

  /**
   * Charges a standing query's arrays, makes it with the bytes charged, builds its answer and tells it
   * of every element from now on; a failure gives the charge back.
   */
  private <Q extends StandingQuery> Q attach(LongFunction<Q> make) {
    long bytes = StandingQuery.bytesFor(capacity);
    try {
      memory.reserveHeap(bytes);
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "keep a standing answer", "give the query more memory");
    }
    Q query;
    try {
      query = make.apply(bytes);
      query.rebuild();
    } catch (RuntimeException | Error e) {
      memory.releaseHeap(bytes);
      throw e;
    }
    StandingQuery[] more = Arrays.copyOf(standing, standing.length + 1);
    more[standing.length] = query;
    standing = more;
    return query;
  }

  /** Stops telling {@code query} of elements; its close calls this. */
  void detach(StandingQuery query) {
    int at = Arrays.asList(standing).indexOf(query);
    if (at >= 0) {
      StandingQuery[] fewer = new StandingQuery[standing.length - 1];
      System.arraycopy(standing, 0, fewer, 0, at);
      System.arraycopy(standing, at + 1, fewer, at, fewer.length - at);
      standing = fewer;
    }
  }

  /** Keys counted so far, merged summaries' included. */
  public long streamLength() {
    return streamLength;
  }

  /** The capacity m. */
  public int counters() {
    return capacity;
  }

  /** The counters and lookup slots this summary was laid out with. */
  public SummarySizing sizing() {
    return sizing;
  }

  /** Keys monitored now (at most {@link #counters}). */
  public int monitored() {
    return summary.size();
  }

  /**
   * The most times any unmonitored key can have occurred (0 until the summary first fills, at most
   * {@code N / m}); no monitored count is smaller.
   */
  public long unmonitoredBound() {
    return unmonitoredBound;
  }

  /** The counter monitoring {@code key}, or -1. */
  int counterOf(long key) {
    checkOpen();
    return index.get(key);
  }

  /** The estimated count of {@code key}: its counter's count, or {@link #unmonitoredBound} (an upper bound). */
  public long estimate(long key) {
    checkOpen();
    int counter = index.get(key);
    return counter >= 0 ? summary.count(counter) : unmonitoredBound;
  }

  /**
   * The {@code k} monitored keys with the largest counts, largest first (fewer when fewer are
   * monitored), each flagged guaranteed when its lower bound is at least the count of the next
   * monitored key (or, past the last one, {@link #unmonitoredBound}); ties within a count are in no
   * particular order.
   */
  public TopK topK(int k) {
    checkOpen();
    if (k < 0) {
      throw new IllegalArgumentException("k must be >= 0, got " + k);
    }
    List<FrequentItem> items = new ArrayList<>(Math.min(k, summary.size()));
    int[] counters = new int[Math.min(k, summary.size())];
    int n = 0;
    long outside = unmonitoredBound;
    walk:
    for (int b = summary.maxBucket(); b != StreamSummary.NONE; b = summary.smallerBucket(b)) {
      for (int c = summary.firstCounter(b); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
        if (n == k) {
          outside = summary.bucketCount(b);
          break walk;
        }
        counters[n++] = c;
      }
    }
    boolean all = true;
    for (int i = 0; i < n; i++) {
      int c = counters[i];
      long count = summary.count(c);
      boolean guaranteed = count - summary.error(c) >= outside;
      all &= guaranteed;
      items.add(new FrequentItem(summary.key(c), count, summary.error(c), guaranteed));
    }
    return new TopK(items, outside, all);
  }

  /**
   * The monitored keys whose count exceeds {@code phi * N}, largest first, each flagged guaranteed
   * when its lower bound exceeds it too.
   */
  public FrequentElements frequent(double phi) {
    checkOpen();
    double threshold = threshold(phi);
    List<FrequentItem> items = new ArrayList<>();
    for (int b = summary.maxBucket(); b != StreamSummary.NONE && summary.bucketCount(b) > threshold;
        b = summary.smallerBucket(b)) {
      for (int c = summary.firstCounter(b); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
        long count = summary.count(c);
        items.add(new FrequentItem(summary.key(c), count, summary.error(c), count - summary.error(c) > threshold));
      }
    }
    return new FrequentElements(items, threshold, unmonitoredBound <= threshold);
  }

  /**
   * The keys of {@link #topK} into {@code into[0, n)}, returning n, without allocating: for a
   * continuous query every few elements.
   */
  public int topKKeys(int k, long[] into) {
    checkOpen();
    if (k < 0) {
      throw new IllegalArgumentException("k must be >= 0, got " + k);
    }
    int n = 0;
    int limit = Math.min(k, into.length);
    for (int b = summary.maxBucket(); b != StreamSummary.NONE && n < limit; b = summary.smallerBucket(b)) {
      for (int c = summary.firstCounter(b); c != StreamSummary.NONE && n < limit; c = summary.nextInBucket(c)) {
        into[n++] = summary.key(c);
      }
    }
    return n;
  }

  /**
   * The keys of {@link #frequent} into {@code into}, returning how many there are (only the first
   * {@code into.length} are written), without allocating.
   */
  public int frequentKeys(double phi, long[] into) {
    checkOpen();
    double threshold = threshold(phi);
    int n = 0;
    for (int b = summary.maxBucket(); b != StreamSummary.NONE && summary.bucketCount(b) > threshold;
        b = summary.smallerBucket(b)) {
      for (int c = summary.firstCounter(b); c != StreamSummary.NONE; c = summary.nextInBucket(c)) {
        if (n < into.length) {
          into[n] = summary.key(c);
        }
        n++;
      }
    }
    return n;
  }

  private double threshold(double phi) {
    if (!(phi > 0 && phi <= 1)) {
      throw new IllegalArgumentException("the support phi must lie in (0, 1], got " + phi);
    }
    return phi * (double) streamLength;
  }

  /**
   * Adds {@code other}'s stream to this summary's (the mergeable form of Agarwal et al. 2012): each
   * key of either summary gets the sum of its counts and of its errors, a key missing from one
   * summary counting that summary's {@link #unmonitoredBound} for both; the m largest sums are kept,
   * and the largest one dropped (or, when none is, the sum of the two bounds) becomes the new bound
   * on unmonitored keys. This is Agarwal et al.'s merge of Misra-Gries summaries (add, keep the m
   * largest, subtract the (m+1)-th count) in Space-Saving's counters, which carry the subtracted
   * count as a floor instead of dropping it.
   *
   * <p>Bound: with {@code N = N1 + N2}, the merged summary keeps every guarantee of the class
   * comment: true counts within {@code [count - error, count]}, unmonitored keys at most
   * {@link #unmonitoredBound} {@code <= N / m}. (Any m + 1 keys' sums add up to at most
   * {@code N1 + N2 + b1 + b2} with {@code b_i <= N_i / m}, so the (m+1)-th largest is at most
   * {@code N / m}; the kept counts add up to at most N, so merging merged summaries keeps it.)
   * {@code other} is left as it was.
   */
  public void merge(SpaceSaving other) {
    merge(other, null, null);
  }

  /**
   * As {@link #merge(SpaceSaving)}, recording for each counter of the result the counter of this
   * summary (before the merge) and of {@code other} that held its key, or -1, in
   * {@code fromThis[c]} and {@code fromOther[c]} (both may be null).
   */
  void merge(SpaceSaving other, int[] fromThis, int[] fromOther) {
    checkOpen();
    other.checkOpen();
    if (other == this) {
      throw new IllegalArgumentException("cannot merge a summary into itself");
    }
    if (other.capacity != capacity) {
      throw new IllegalArgumentException("cannot merge a summary of " + other.capacity + " counters into one of "
          + capacity + ": the bound needs equal capacities");
    }
    int total = summary.size() + other.summary.size();
    long[] keys = new long[total];
    long[] counts = new long[total];
    long[] errors = new long[total];
    int[] mine = new int[total];
    int[] theirs = new int[total];
    int n = 0;
    for (int c = 0; c < summary.size(); c++) {
      long key = summary.key(c);
      int o = other.index.get(key);
      keys[n] = key;
      counts[n] = summary.count(c) + (o >= 0 ? other.summary.count(o) : other.unmonitoredBound);
      errors[n] = summary.error(c) + (o >= 0 ? other.summary.error(o) : other.unmonitoredBound);
      mine[n] = c;
      theirs[n++] = o;
    }
    for (int o = 0; o < other.summary.size(); o++) {
      long key = other.summary.key(o);
      if (index.get(key) < 0) {
        keys[n] = key;
        counts[n] = other.summary.count(o) + unmonitoredBound;
        errors[n] = other.summary.error(o) + unmonitoredBound;
        mine[n] = -1;
        theirs[n++] = o;
      }
    }
    int[] order = CountOrder.descending(counts, keys, n);
    int kept = Math.min(n, capacity);
    long bound = n > capacity ? counts[order[capacity]] : unmonitoredBound + other.unmonitoredBound;
    summary.clear();
    index.clear();
    for (int i = kept - 1; i >= 0; i--) { // ascending: each lands in the top bucket
      int e = order[i];
      int counter = summary.add(keys[e], counts[e], errors[e]);
      index.put(keys[e], counter);
      if (fromThis != null) {
        fromThis[counter] = mine[e];
        fromOther[counter] = theirs[e];
      }
    }
    unmonitoredBound = bound;
    streamLength += other.streamLength;
    for (StandingQuery query : standing) {
      query.rebuild();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw closedException();
    }
  }

  private IllegalStateException closedException() {
    return new IllegalStateException("this Space-Saving summary is closed");
  }

  /** Releases the heap charged for the arrays and closes the standing queries; later calls throw. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      for (StandingQuery query : standing.clone()) {
        query.close();
      }
      closed = true;
      memory.releaseHeap(chargedBytes);
    }
  }
}
