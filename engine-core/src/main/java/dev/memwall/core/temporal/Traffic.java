package dev.memwall.core.temporal;

import java.util.Arrays;

/**
 * The memory traffic of one query, the measure of Jouini and Jomier: the 64-byte cache lines of
 * the layout's arrays the query reads, counting a line again only when the query comes back to it
 * after reading other lines of the same array. Lines are counted from each array's first element
 * (the JVM's object header is not modelled). Up to sixteen arrays are followed at once,
 * enough for a join of that many attribute sub-relations; an array beyond them forgets its last line.
 * Counting is off unless asked for, so timed queries pay one predictable branch per read.
 * Thread safety: none; the layout's reader owns it.
 */
final class Traffic {
  static final int LINE_BYTES = 64;
  private static final int LONGS_PER_LINE = LINE_BYTES / Long.BYTES;
  private static final int STREAMS = 16;

  private final Object[] arrays = new Object[STREAMS];
  private final long[] lastLines = new long[STREAMS];
  private int nextStream;
  private long lines;
  private boolean on;

  void enable(boolean enabled) {
    on = enabled;
  }

  boolean enabled() {
    return on;
  }

  /** Starts counting a new query. */
  void reset() {
    Arrays.fill(arrays, null);
    lines = 0;
  }

  /** The query reads the longs {@code from..to} (both included) of {@code array}. */
  void read(Object array, int from, int to) {
    if (!on) {
      return;
    }
    int stream = streamOf(array);
    long first = from / LONGS_PER_LINE;
    long last = to / LONGS_PER_LINE;
    long fresh = last - first + 1;
    if (lastLines[stream] >= first && lastLines[stream] <= last) {
      fresh--;
    }
    lines += fresh;
    lastLines[stream] = last;
  }

  /** Bytes read by the query since {@link #reset}, whole lines. */
  long bytes() {
    return lines * LINE_BYTES;
  }

  private int streamOf(Object array) {
    for (int i = 0; i < STREAMS; i++) {
      if (arrays[i] == array) {
        return i;
      }
    }
    int stream = nextStream;
    nextStream = (nextStream + 1) % STREAMS;
    arrays[stream] = array;
    lastLines[stream] = -1;
    return stream;
  }
}
