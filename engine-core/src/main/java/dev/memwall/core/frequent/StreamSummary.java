package dev.memwall.core.frequent;

/**
 * The Stream Summary of Metwally, Agrawal and El Abbadi 2005 in flat arrays: counters (a key and
 * its error) grouped into buckets of equal count, the buckets in a doubly linked list by increasing
 * count, each bucket's counters in a doubly linked list of their own. Every link is an index into a
 * primitive array, so the structure is a handful of {@code int[]} and {@code long[]} of the capacity
 * and no object per element; incrementing a counter and finding a minimum counter take constant
 * time, and a walk from the largest bucket down yields the counters in descending count order.
 *
 * <p>At most as many buckets as counters are ever in use (every bucket holds a counter, and an
 * increment that needs a new bucket leaves at least one counter in the old one), so the bucket
 * arrays have the counters' length. Thread safety: none; the owning summary's one writer.
 */
final class StreamSummary {
  static final int NONE = -1;

  private final int capacity;
  /** Counters: key, error, bucket, and the neighbours within the bucket. */
  private final long[] keys;
  private final long[] errors;
  private final int[] bucketOf;
  private final int[] nextInBucket;
  private final int[] previousInBucket;
  /** Buckets: count, first counter, and the neighbours with the next larger and smaller counts. */
  private final long[] bucketCounts;
  private final int[] firstCounter;
  private final int[] larger;
  private final int[] smaller;
  /** Unused buckets, chained through {@link #larger}. */
  private int freeBuckets;
  private int minBucket = NONE;
  private int maxBucket = NONE;
  private int size;

  StreamSummary(int capacity) {
    this.capacity = capacity;
    keys = new long[capacity];
    errors = new long[capacity];
    bucketOf = new int[capacity];
    nextInBucket = new int[capacity];
    previousInBucket = new int[capacity];
    bucketCounts = new long[capacity];
    firstCounter = new int[capacity];
    larger = new int[capacity];
    smaller = new int[capacity];
    clear();
  }

  /** Bytes the arrays of a summary of {@code capacity} counters hold. */
  static long bytesFor(int capacity) {
    return (long) capacity * (8 + 8 + 4 + 4 + 4 + 8 + 4 + 4 + 4);
  }

  /** Drops every counter. */
  void clear() {
    size = 0;
    minBucket = NONE;
    maxBucket = NONE;
    for (int b = 0; b < capacity; b++) {
      larger[b] = b + 1 < capacity ? b + 1 : NONE;
    }
    freeBuckets = capacity > 0 ? 0 : NONE;
  }

  int size() {
    return size;
  }

  boolean full() {
    return size == capacity;
  }

  long key(int counter) {
    return keys[counter];
  }

  long error(int counter) {
    return errors[counter];
  }

  long count(int counter) {
    return bucketCounts[bucketOf[counter]];
  }

  /** A counter with the smallest count; the summary is not empty. */
  int minCounter() {
    return firstCounter[minBucket];
  }

  /** The smallest count, or 0 for an empty summary. */
  long minCount() {
    return minBucket == NONE ? 0 : bucketCounts[minBucket];
  }

  /** The bucket with the largest count, or {@link #NONE}; walk on with {@link #smallerBucket}. */
  int maxBucket() {
    return maxBucket;
  }

  int smallerBucket(int bucket) {
    return smaller[bucket];
  }

  /** The bucket with the next larger count, or {@link #NONE}. */
  int largerBucket(int bucket) {
    return larger[bucket];
  }

  /** The bucket {@code counter} is in. */
  int bucketOf(int counter) {
    return bucketOf[counter];
  }

  long bucketCount(int bucket) {
    return bucketCounts[bucket];
  }

  int firstCounter(int bucket) {
    return firstCounter[bucket];
  }

  /** The next counter of the same bucket, or {@link #NONE}. */
  int nextInBucket(int counter) {
    return nextInBucket[counter];
  }

  /**
   * A new counter for {@code key} with {@code count} and {@code error}; the summary is not full. The
   * bucket is found by walking from the end nearer to {@code count}, which is one step for the
   * summary's own uses (a new element one above the smallest count, a rebuild in ascending order).
   */
  int add(long key, long count, long error) {
    int counter = size++;
    keys[counter] = key;
    errors[counter] = error;
    if (maxBucket == NONE || count >= bucketCounts[maxBucket]) {
      placeAbove(counter, count, maxBucket, NONE);
    } else {
      int below = NONE;
      int above = minBucket;
      while (bucketCounts[above] < count) {
        below = above;
        above = larger[above];
      }
      placeAbove(counter, count, below, above);
    }
    return counter;
  }

  /**
   * Puts {@code counter} into the bucket of {@code count}, which lies just above bucket {@code below}
   * (or is {@code above} itself when that bucket has the count); either may be {@link #NONE}.
   */
  private void placeAbove(int counter, long count, int below, int above) {
    int bucket;
    if (below != NONE && bucketCounts[below] == count) {
      bucket = below;
    } else if (above != NONE && bucketCounts[above] == count) {
      bucket = above;
    } else {
      bucket = newBucket(count, below, above);
    }
    link(counter, bucket);
  }

  /**
   * Gives {@code counter} to {@code key} with {@code error} (an evicted minimum counter becoming a
   * new element's), keeping its count.
   */
  void rekey(int counter, long key, long error) {
    keys[counter] = key;
    errors[counter] = error;
  }

  /** Adds one to {@code counter}'s count, moving it to the next bucket up. */
  void increment(int counter) {
    int bucket = bucketOf[counter];
    long count = bucketCounts[bucket] + 1;
    int up = larger[bucket];
    if (up != NONE && bucketCounts[up] == count) {
      unlink(counter);
      link(counter, up);
    } else if (firstCounter[bucket] == counter && nextInBucket[counter] == NONE) {
      bucketCounts[bucket] = count; // alone in its bucket, below any larger count: the bucket moves up
    } else {
      unlink(counter);
      link(counter, newBucket(count, bucket, up));
    }
  }

  private int newBucket(long count, int below, int above) {
    int bucket = freeBuckets;
    freeBuckets = larger[bucket];
    bucketCounts[bucket] = count;
    firstCounter[bucket] = NONE;
    smaller[bucket] = below;
    larger[bucket] = above;
    if (below == NONE) {
      minBucket = bucket;
    } else {
      larger[below] = bucket;
    }
    if (above == NONE) {
      maxBucket = bucket;
    } else {
      smaller[above] = bucket;
    }
    return bucket;
  }

  private void link(int counter, int bucket) {
    int first = firstCounter[bucket];
    bucketOf[counter] = bucket;
    previousInBucket[counter] = NONE;
    nextInBucket[counter] = first;
    if (first != NONE) {
      previousInBucket[first] = counter;
    }
    firstCounter[bucket] = counter;
  }

  /** Takes {@code counter} out of its bucket, freeing the bucket if it empties. */
  private void unlink(int counter) {
    int bucket = bucketOf[counter];
    int previous = previousInBucket[counter];
    int next = nextInBucket[counter];
    if (previous == NONE) {
      firstCounter[bucket] = next;
    } else {
      nextInBucket[previous] = next;
    }
    if (next != NONE) {
      previousInBucket[next] = previous;
    }
    if (firstCounter[bucket] == NONE) {
      int below = smaller[bucket];
      int above = larger[bucket];
      if (below == NONE) {
        minBucket = above;
      } else {
        larger[below] = above;
      }
      if (above == NONE) {
        maxBucket = below;
      } else {
        smaller[above] = below;
      }
      larger[bucket] = freeBuckets;
      freeBuckets = bucket;
    }
  }
}
