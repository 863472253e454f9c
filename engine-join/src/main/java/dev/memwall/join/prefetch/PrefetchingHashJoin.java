package dev.memwall.join.prefetch;

import dev.memwall.join.prefetch.BucketTable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Hash-table build and probe over a {@link BucketTable} in the three forms of seed 002, chapter 4:
 * {@link Mode#PLAIN} (one tuple at a time: every dependent reference a fully exposed miss),
 * {@link Mode#GROUP} (each stage run for G tuples before the next stage) and {@link Mode#PIPELINED}
 * (software pipelining: one iteration runs stage l of the tuple l D positions back).
 *
 * <p>Stages of a probe (k = 3 dependent references): 0 reads the probe tuple, computes its bucket
 * and loads the bucket header; 1 visits the header, loads the inline cell's build tuple on a code
 * match and the first cell of the cell array; 2 scans the cell array and loads every build tuple
 * whose code matches (several loads for several matches); 3 compares keys and reports matches. A
 * build has stages 0 (load the header), 1 (set the bucket's busy flag, load the cell slot) and 2
 * (insert). A build tuple whose bucket is busy (another tuple of the group, or in flight in the
 * pipeline, is inserting there) is deferred: to the end of the group, or into a waiting queue
 * retried after each insert.
 *
 * <p>On the JVM the "prefetch" of a stage is the independent load itself, issued for the whole
 * group (or D iterations ahead) before any result is used and kept in the state arrays; nothing
 * here is a prefetch instruction (see the package documentation).
 *
 * <p>Probe input: {@code n} 16-byte tuples (code, row, key) as in the spill pages, or wider tuples
 * starting with them; build tuples are the table's ({@link BucketTable#tupleBytes()}). Thread safety:
 * one thread per instance (the state arrays are reused).
 */
public final class PrefetchingHashJoin {
  /** The form of the loops. */
  public enum Mode { PLAIN, GROUP, PIPELINED }

  /** Receives a probe's outcome; one implementation per use keeps the call monomorphic. */
  public interface ProbeSink {
    /** A build tuple with an equal key was found; returns whether it really matches (wide keys are confirmed). */
    boolean match(int probeRow, int buildRow);

    /** Every candidate of the probe tuple has been seen. */
    void finish(int probeRow, boolean matched);
  }

  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final int PROBE_TUPLE_BYTES = 16;
  private static final int HEADER = BucketTable.HEADER_BYTES;
  private static final int CELL = BucketTable.CELL_BYTES;
  private static final int SLOT_CANDIDATES = 4;

  private final Mode mode;
  private final int group;
  private final int distance;
  private final int ring;
  // per-tuple state (group: G entries; pipelined: ring entries)
  private final int[] codes;
  private final int[] rows;
  private final long[] keys;
  private final long[] headerAt;
  private final int[] counts;
  private final int[] inlineTuple;
  private final long[] inlineKey;
  private final int[] cellOffset;
  private final int[] candidateStart;
  private final int[] slotCandidates;
  private int[] candidateTuple;
  private long[] candidateKey;
  private int[] deferred;
  private long touched;

  public PrefetchingHashJoin(Mode mode, PrefetchTuning tuning) {
    this.mode = mode;
    this.group = tuning.group();
    this.distance = tuning.distance();
    this.ring = PrefetchTuning.ringSize(PrefetchTuning.PROBE_REFERENCES, distance);
    int slots = Math.max(group, ring);
    codes = new int[slots];
    rows = new int[slots];
    keys = new long[slots];
    headerAt = new long[slots];
    counts = new int[slots];
    inlineTuple = new int[slots];
    inlineKey = new long[slots];
    cellOffset = new int[slots];
    candidateStart = new int[slots + 1];
    slotCandidates = new int[slots];
    candidateTuple = new int[Math.max(slots * SLOT_CANDIDATES, 64)];
    candidateKey = new long[candidateTuple.length];
    deferred = new int[slots];
  }

  public Mode mode() {
    return mode;
  }

  /** A value derived from the loads the stages issued only to bring lines in (keeps them from being optimized away). */
  public long touched() {
    return touched;
  }

  // ---------------------------------------------------------------------------------------------- build

  /** Builds {@code table} over its first {@code n} tuples ({@link BucketTable#tupleSpace}) for {@code partitions} partitions. */
  public void build(BucketTable table, int n, int partitions) {
    switch (mode) {
      case PLAIN -> table.build(n, partitions);
      case GROUP -> {
        table.reset(n, partitions);
        buildGroup(table, n);
      }
      case PIPELINED -> {
        table.reset(n, partitions);
        buildPipelined(table, n);
      }
    }
  }

  private void buildGroup(BucketTable table, int n) {
    MemorySegment ts = table.tuples();
    long tb = table.tupleBytes();
    int g0 = group;
    long touch = 0;
    for (int j = 0; j < n; j += g0) {
      int g = Math.min(g0, n - j);
      MemorySegment hs = table.headers();
      // stage 0: bucket of each tuple, and the load of its header
      for (int i = 0; i < g; i++) {
        int code = ts.get(INT, (long) (j + i) * tb);
        codes[i] = code;
        long h = table.header(code);
        headerAt[i] = h;
        counts[i] = hs.get(INT, h);
      }
      // stage 1: claim the bucket (busy flag) or defer; load the cell slot the insert will write
      int waiting = 0;
      MemorySegment cs = table.cells();
      for (int i = 0; i < g; i++) {
        long h = headerAt[i];
        int count = hs.get(INT, h);
        if ((count & BucketTable.BUSY) != 0) {
          deferred[waiting++] = i;
          counts[i] = -1;
          continue;
        }
        hs.set(INT, h, count | BucketTable.BUSY);
        counts[i] = 0;
        if (count > 1) {
          long slot = ((long) hs.get(INT, h + 12) + count - 2) * CELL;
          touch += cs.get(INT, slot);
        }
      }
      // stage 2: insert (clears the busy flag)
      for (int i = 0; i < g; i++) {
        if (counts[i] >= 0) {
          table.insert(headerAt[i], codes[i], j + i);
        }
      }
      // deferred tuples: their bucket's insert has finished and left it in cache
      for (int d = 0; d < waiting; d++) {
        int i = deferred[d];
        table.insert(headerAt[i], codes[i], j + i);
      }
    }
    touched += touch;
  }

  private void buildPipelined(BucketTable table, int n) {
    MemorySegment ts = table.tuples();
    long tb = table.tupleBytes();
    int d = distance;
    int mask = PrefetchTuning.ringSize(2, d) - 1;
    int[] queue = deferred;
    int queued = 0;
    long touch = 0;
    for (int j = 0; j < n + 2 * d; j++) {
      MemorySegment hs = table.headers();
      int e2 = j - 2 * d; // stage 2: insert
      if (e2 >= 0 && e2 < n) {
        int s = e2 & mask;
        if (counts[s] >= 0) {
          table.insert(headerAt[s], codes[s], e2);
          // the waiting queue: tuples whose bucket was busy, inserted once it is free
          int kept = 0;
          for (int q = 0; q < queued; q++) {
            int waiting = queue[q];
            int code = ts.get(INT, (long) waiting * tb);
            long h = table.header(code);
            if ((hs.get(INT, h) & BucketTable.BUSY) == 0) {
              table.insert(h, code, waiting);
            } else {
              queue[kept++] = waiting;
            }
          }
          queued = kept;
        }
      }
      int e1 = j - d; // stage 1: claim the bucket or queue the tuple; load the cell slot
      if (e1 >= 0 && e1 < n) {
        int s = e1 & mask;
        long h = headerAt[s];
        int count = hs.get(INT, h);
        if ((count & BucketTable.BUSY) != 0) {
          if (queued == queue.length) {
            queue = deferred = Arrays.copyOf(queue, queue.length * 2);
          }
          queue[queued++] = e1;
          counts[s] = -1;
        } else {
          hs.set(INT, h, count | BucketTable.BUSY);
          counts[s] = count;
          if (count > 1) {
            touch += table.cells().get(INT, ((long) hs.get(INT, h + 12) + count - 2) * CELL);
          }
        }
      }
      if (j < n) { // stage 0: bucket and header load
        int s = j & mask;
        int code = ts.get(INT, (long) j * tb);
        codes[s] = code;
        long h = table.header(code);
        headerAt[s] = h;
        touch += hs.get(INT, h);
      }
    }
    for (int q = 0; q < queued; q++) {
      int waiting = queue[q];
      int code = ts.get(INT, (long) waiting * tb);
      table.insert(table.header(code), code, waiting);
    }
    touched += touch;
  }

  // ---------------------------------------------------------------------------------------------- probe

  /**
   * Probes {@code table} with the {@code n} tuples of {@code probe}; reports each candidate with an
   * equal key to {@code sink}, and each probe tuple's end. With {@code firstSuffices} a probe tuple
   * stops at its first accepted match (semi and anti joins).
   */
  public void probe(BucketTable table, MemorySegment probe, int n, boolean firstSuffices, ProbeSink sink) {
    probe(table, probe, PROBE_TUPLE_BYTES, n, firstSuffices, sink);
  }

  /**
   * As {@link #probe(BucketTable, MemorySegment, int, boolean, ProbeSink)} over probe tuples of
   * {@code probeTupleBytes} each, starting with (code, row, key) (a multiple of 8, at least 16).
   */
  public void probe(BucketTable table, MemorySegment probe, int probeTupleBytes, int n, boolean firstSuffices,
      ProbeSink sink) {
    BucketTable.checkTupleBytes(probeTupleBytes, "probe");
    switch (mode) {
      case PLAIN -> probePlain(table, probe, probeTupleBytes, n, firstSuffices, sink);
      case GROUP -> probeGroup(table, probe, probeTupleBytes, n, firstSuffices, sink);
      case PIPELINED -> probePipelined(table, probe, probeTupleBytes, n, firstSuffices, sink);
    }
  }

  private static void probePlain(BucketTable table, MemorySegment probe, long pb, int n, boolean firstSuffices,
      ProbeSink sink) {
    MemorySegment hs = table.headers();
    MemorySegment cs = table.cells();
    MemorySegment ts = table.tuples();
    long tb = table.tupleBytes();
    for (int i = 0; i < n; i++) {
      long o = (long) i * pb;
      int code = probe.get(INT, o);
      int row = probe.get(INT, o + 4);
      long key = probe.get(LONG, o + 8);
      long h = table.header(code);
      int count = hs.get(INT, h);
      boolean matched = false;
      if (count > 0 && hs.get(INT, h + 4) == code) {
        int tuple = hs.get(INT, h + 8);
        if (ts.get(LONG, (long) tuple * tb + 8) == key && sink.match(row, ts.get(INT, (long) tuple * tb + 4))) {
          matched = true;
        }
      }
      if (count > 1 && !(matched && firstSuffices)) {
        long cell = (long) hs.get(INT, h + 12) * CELL;
        long end = cell + (long) (count - 1) * CELL;
        for (; cell < end; cell += CELL) {
          if (cs.get(INT, cell) == code) {
            int tuple = cs.get(INT, cell + 4);
            if (ts.get(LONG, (long) tuple * tb + 8) == key && sink.match(row, ts.get(INT, (long) tuple * tb + 4))) {
              matched = true;
              if (firstSuffices) {
                break;
              }
            }
          }
        }
      }
      sink.finish(row, matched);
    }
  }

  private void probeGroup(BucketTable table, MemorySegment probe, long pb, int n, boolean firstSuffices, ProbeSink sink) {
    MemorySegment hs = table.headers();
    MemorySegment cs = table.cells();
    MemorySegment ts = table.tuples();
    long tb = table.tupleBytes();
    int g0 = group;
    for (int j = 0; j < n; j += g0) {
      int g = Math.min(g0, n - j);
      // stage 0: read the tuple, compute its bucket, load the header
      for (int i = 0; i < g; i++) {
        long o = (long) (j + i) * pb;
        int code = probe.get(INT, o);
        codes[i] = code;
        rows[i] = probe.get(INT, o + 4);
        keys[i] = probe.get(LONG, o + 8);
        long h = table.header(code);
        headerAt[i] = h;
        counts[i] = hs.get(INT, h);
      }
      // stage 1: visit the header; load the inline cell's build tuple on a code match and the cell array
      for (int i = 0; i < g; i++) {
        int count = counts[i];
        long h = headerAt[i];
        inlineTuple[i] = -1;
        if (count > 0 && hs.get(INT, h + 4) == codes[i]) {
          int tuple = hs.get(INT, h + 8);
          inlineTuple[i] = tuple;
          inlineKey[i] = ts.get(LONG, (long) tuple * tb + 8);
        }
        if (count > 1) {
          int offset = hs.get(INT, h + 12);
          cellOffset[i] = offset;
          touched += cs.get(INT, (long) offset * CELL);
        }
      }
      // stage 2: scan the cell arrays; load every build tuple whose code matches
      int c = 0;
      for (int i = 0; i < g; i++) {
        candidateStart[i] = c;
        int count = counts[i];
        if (count > 1) {
          if (c + count > candidateTuple.length) {
            growCandidates(c + count);
          }
          int code = codes[i];
          long cell = (long) cellOffset[i] * CELL;
          long end = cell + (long) (count - 1) * CELL;
          for (; cell < end; cell += CELL) {
            if (cs.get(INT, cell) == code) {
              int tuple = cs.get(INT, cell + 4);
              candidateTuple[c] = tuple;
              candidateKey[c++] = ts.get(LONG, (long) tuple * tb + 8);
            }
          }
        }
      }
      candidateStart[g] = c;
      // stage 3: compare keys, report
      for (int i = 0; i < g; i++) {
        int row = rows[i];
        long key = keys[i];
        boolean matched = false;
        int tuple = inlineTuple[i];
        if (tuple >= 0 && inlineKey[i] == key && sink.match(row, ts.get(INT, (long) tuple * tb + 4))) {
          matched = true;
        }
        if (!(matched && firstSuffices)) {
          for (int k = candidateStart[i], end = candidateStart[i + 1]; k < end; k++) {
            if (candidateKey[k] == key && sink.match(row, ts.get(INT, (long) candidateTuple[k] * tb + 4))) {
              matched = true;
              if (firstSuffices) {
                break;
              }
            }
          }
        }
        sink.finish(row, matched);
      }
    }
  }

  private void growCandidates(int needed) {
    int size = Math.max(needed, candidateTuple.length * 2);
    candidateTuple = Arrays.copyOf(candidateTuple, size);
    candidateKey = Arrays.copyOf(candidateKey, size);
  }

  private void probePipelined(BucketTable table, MemorySegment probe, long pb, int n, boolean firstSuffices,
      ProbeSink sink) {
    MemorySegment hs = table.headers();
    MemorySegment cs = table.cells();
    MemorySegment ts = table.tuples();
    long tb = table.tupleBytes();
    int d = distance;
    int mask = ring - 1;
    long touch = 0;
    for (int j = 0; j < n + 3 * d; j++) {
      int e3 = j - 3 * d; // stage 3: compare keys and report
      if (e3 >= 0 && e3 < n) {
        int s = e3 & mask;
        int row = rows[s];
        long key = keys[s];
        boolean matched = false;
        int tuple = inlineTuple[s];
        if (tuple >= 0 && inlineKey[s] == key && sink.match(row, ts.get(INT, (long) tuple * tb + 4))) {
          matched = true;
        }
        if (!(matched && firstSuffices)) {
          int found = slotCandidates[s];
          if (found <= SLOT_CANDIDATES) {
            for (int k = s * SLOT_CANDIDATES, end = k + found; k < end; k++) {
              if (candidateKey[k] == key && sink.match(row, ts.get(INT, (long) candidateTuple[k] * tb + 4))) {
                matched = true;
                if (firstSuffices) {
                  break;
                }
              }
            }
          } else { // more matching codes than the slot holds: scan the (cached) cell array again
            int code = codes[s];
            long cell = (long) cellOffset[s] * CELL;
            long end = cell + (long) (counts[s] - 1) * CELL;
            for (; cell < end; cell += CELL) {
              if (cs.get(INT, cell) == code) {
                int t = cs.get(INT, cell + 4);
                if (ts.get(LONG, (long) t * tb + 8) == key && sink.match(row, ts.get(INT, (long) t * tb + 4))) {
                  matched = true;
                  if (firstSuffices) {
                    break;
                  }
                }
              }
            }
          }
        }
        sink.finish(row, matched);
      }
      int e2 = j - 2 * d; // stage 2: scan the cell array, load matching build tuples
      if (e2 >= 0 && e2 < n) {
        int s = e2 & mask;
        int count = counts[s];
        int found = 0;
        if (count > 1) {
          int code = codes[s];
          long cell = (long) cellOffset[s] * CELL;
          long end = cell + (long) (count - 1) * CELL;
          int base = s * SLOT_CANDIDATES;
          for (; cell < end; cell += CELL) {
            if (cs.get(INT, cell) == code) {
              if (found < SLOT_CANDIDATES) {
                int t = cs.get(INT, cell + 4);
                candidateTuple[base + found] = t;
                candidateKey[base + found] = ts.get(LONG, (long) t * tb + 8);
              }
              found++;
            }
          }
        }
        slotCandidates[s] = found;
      }
      int e1 = j - d; // stage 1: visit the header, load the inline tuple and the cell array
      if (e1 >= 0 && e1 < n) {
        int s = e1 & mask;
        int count = counts[s];
        long h = headerAt[s];
        inlineTuple[s] = -1;
        if (count > 0 && hs.get(INT, h + 4) == codes[s]) {
          int tuple = hs.get(INT, h + 8);
          inlineTuple[s] = tuple;
          inlineKey[s] = ts.get(LONG, (long) tuple * tb + 8);
        }
        if (count > 1) {
          int offset = hs.get(INT, h + 12);
          cellOffset[s] = offset;
          touch += cs.get(INT, (long) offset * CELL);
        }
      }
      if (j < n) { // stage 0: read the tuple, bucket, header load
        int s = j & mask;
        long o = (long) j * pb;
        int code = probe.get(INT, o);
        codes[s] = code;
        rows[s] = probe.get(INT, o + 4);
        keys[s] = probe.get(LONG, o + 8);
        long h = table.header(code);
        headerAt[s] = h;
        counts[s] = hs.get(INT, h);
      }
    }
    touched += touch;
  }
}
