package dev.memwall.join.prefetch;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.hash.Remainders;
import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.SysfsTopology;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;

/**
 * The partition loop of a hash join's partition phase (seed 002, section 4.6) in the three forms of
 * chapter 4: {@link PrefetchingHashJoin.Mode#PLAIN} (one record at a time), {@link
 * PrefetchingHashJoin.Mode#GROUP} (each stage run for G records before the next stage) and {@link
 * PrefetchingHashJoin.Mode#PIPELINED} (software pipelining: one iteration runs stage l of the record
 * l D positions back, state in a ring of a power of two of at least 2D + 1 entries).
 *
 * <p>Fixed-width records of {@code recordBytes} go, by a 32-bit hash code taken from the record
 * ({@link Routing}) modulo the partition count, into one output page of {@code pageBytes} per
 * partition; a page that cannot take another record is handed to the {@link PageSink} and starts
 * over empty. Stages of a record (k = 2 dependent references):
 *
 * <ol start="0">
 *   <li>read the record's hash code, compute its partition {@code p}, and load {@code p}'s fill
 *       position (the "prefetch" of the output buffer's state);
 *   <li>visit the output buffer: from that fill position, load every cache line the record will be
 *       written to (the "prefetch" of the destination: with many partitions the pages outgrow the
 *       cache and this is the load that misses);
 *   <li>copy the record to the page at the partition's <em>current</em> fill position, advance it,
 *       and hand a full page to the sink.
 * </ol>
 *
 * <p><b>Read-write conflicts.</b> Two records of one group (or of one in-flight window of the
 * pipeline) can go to the same partition, and the page can fill up between them (the thesis's
 * read-write conflict on output buffers, section 4.6). Here only stage 2 reads the fill position it
 * writes at, and stage 2 runs in input order in every form; the fill position stage 0 loaded only
 * chooses which line stage 1 loads, so a stale one costs a useless load, never a misplaced record.
 * Consequently all three forms write the same records to the same pages in the same order and call
 * the sink with the same pages in the same order: only the order of the loads differs. Fill
 * positions live in a dense array of 4 bytes per partition (cache-resident even for thousands of
 * partitions), so the miss per record is the destination line, not the page's bookkeeping.
 *
 * <p><b>Prefetching on the JVM.</b> Java has no prefetch instruction: the "prefetch" of a stage is
 * the independent load itself, issued for the whole group (or D iterations ahead) before the copy
 * that needs the line, its value folded into {@link #touched()} so that the JIT keeps it. The loads
 * of different records do not depend on each other, so the out-of-order core keeps several misses
 * in flight. Loading a line before writing it also brings it in for the store: the copy then writes
 * to a cached line instead of waiting on a read-for-ownership. Unlike a prefetch instruction, such a
 * load stays in the core's reorder window until its line arrives: the group form, whose stage 1 is
 * a tight loop of loads, fits many of them into the window at once, while the pipelined form's load
 * sits there with D iterations of copying behind it, and the plain loop's stores can already leave
 * the window for the store buffer. G and D come from {@link PrefetchTuning} (eq. 4.1 and 4.2,
 * {@link PrefetchTuning#PARTITION_REFERENCES} references).
 *
 * <p><b>Ownership.</b> The partitioner owns its output pages ({@code partitions x pageBytes} bytes
 * allocated through the given {@link EngineMemory}) and frees them on {@link #close}. The input
 * batch stays the caller's and is only read during {@link #partition}. A page handed to the sink is
 * a slice of the partitioner's memory, valid only during that call: the sink must copy or write out
 * what it keeps.
 *
 * <p><b>Thread safety.</b> One thread per instance (pages, fill positions and state arrays are
 * unsynchronized and reused).
 *
 * <p><b>Bad input.</b> Bad shapes, routings, counts or batches too small for their count are
 * rejected with {@link IllegalArgumentException} before anything is written; use after
 * {@link #close} with {@link IllegalStateException}. An exception from the sink propagates; the
 * page it was given and the records after it in that batch are then in an unspecified state, and
 * the partitioner should only be closed.
 */
public final class PrefetchingPartitioner implements AutoCloseable {
  /** Receives each full page, and on {@link #finish} each non-empty one. */
  @FunctionalInterface
  public interface PageSink {
    /**
     * Takes {@code page}: the partition's records, whole, in the order they were added; valid only
     * during the call.
     */
    void flush(int partition, MemorySegment page);
  }

  /**
   * Where a record's 32-bit hash code comes from; its partition is that code modulo the partition
   * count (unsigned), as the thesis's "hash code modulo the number of partitions".
   *
   * @param offset the code's (or key's) byte offset in the record
   * @param remix whether the code is {@link Hashing#mix64} of the 8-byte key at {@code offset} XOR
   *     {@code seed}, high 32 bits (a fresh hash, for re-partitioning), rather than the 4-byte code
   *     stored at {@code offset}
   * @param seed the remix seed (ignored without remix)
   */
  public record Routing(int offset, boolean remix, long seed) {
    public Routing {
      if (offset < 0) {
        throw new IllegalArgumentException("routing offset must not be negative, got " + offset);
      }
    }

    /** The 4-byte hash code stored at {@code offset}. */
    public static Routing code(int offset) {
      return new Routing(offset, false, 0);
    }

    /** A fresh code: the high half of {@code mix64(key ^ seed)} of the 8-byte key at {@code offset}. */
    public static Routing remixedKey(int offset, long seed) {
      return new Routing(offset, true, seed);
    }

    /** Bytes of the record this routing reads. */
    int bytes() {
      return remix ? Long.BYTES : Integer.BYTES;
    }
  }

  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
  /** The first-level data cache line (sysfs), the stride of the destination loads. */
  static final int LINE_BYTES = lineBytes(SysfsTopology.dataCaches(SysfsTopology.DEFAULT_ROOT));

  private final PrefetchingHashJoin.Mode mode;
  private final int group;
  private final int distance;
  private final int ringMask;
  private final int partitions;
  /** {@link Remainders#reciprocal} of the partition count: a record's partition costs no division. */
  private final long partitionsReciprocal;
  private final int pageBytes;
  private final int recordBytes;
  /** Bytes of whole records a page holds: a page is full at this fill position. */
  private final int pageLimit;
  private final int routingOffset;
  private final boolean remix;
  private final long seed;
  private final PageSink sink;
  private final OffHeapBuffer buffer;
  private final MemorySegment pages;
  /** Per partition: bytes of records in its page. */
  private final int[] fill;
  /** Per partition: records handed to the sink so far. */
  private final long[] flushed;
  // per-record state (group: G entries; pipelined: ring entries)
  private final int[] partitionOf;
  private final long[] destination;
  private long touched;
  private boolean closed;

  /**
   * A partitioner with empty pages.
   *
   * @param memory where the output pages are allocated (charged to its budget until close)
   * @param partitions how many partitions, at least 1
   * @param pageBytes bytes of each partition's output page, at least {@code recordBytes}; a page
   *     holds {@code pageBytes / recordBytes} records
   * @param recordBytes the width of a record, at least what {@code routing} reads
   * @param routing where the hash code is in a record
   * @param mode the loop form
   * @param tuning G (group) and D (pipelined)
   * @param sink receives full pages
   * @throws IllegalArgumentException on a bad shape
   * @throws dev.memwall.core.memory.BudgetExceededException if the pages do not fit the budget
   */
  public PrefetchingPartitioner(EngineMemory memory, int partitions, int pageBytes, int recordBytes, Routing routing,
      PrefetchingHashJoin.Mode mode, PrefetchTuning tuning, PageSink sink) {
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(tuning, "tuning");
    Objects.requireNonNull(sink, "sink");
    if (partitions < 1) {
      throw new IllegalArgumentException("a partitioner needs at least one partition, got " + partitions);
    }
    if (recordBytes < 1) {
      throw new IllegalArgumentException("records must be at least one byte wide, got " + recordBytes);
    }
    if ((long) routing.offset() + routing.bytes() > recordBytes) {
      throw new IllegalArgumentException("the hash code at offset " + routing.offset() + " (" + routing.bytes()
          + " bytes) does not fit a record of " + recordBytes + " bytes");
    }
    if (pageBytes < recordBytes) {
      throw new IllegalArgumentException("a page of " + pageBytes + " bytes cannot hold a record of "
          + recordBytes + " bytes");
    }
    this.mode = mode;
    this.group = tuning.group();
    this.distance = tuning.distance();
    this.ringMask = PrefetchTuning.ringSize(PrefetchTuning.PARTITION_REFERENCES, distance) - 1;
    this.partitions = partitions;
    this.partitionsReciprocal = Remainders.reciprocal(partitions);
    this.pageBytes = pageBytes;
    this.recordBytes = recordBytes;
    this.pageLimit = pageBytes / recordBytes * recordBytes;
    this.routingOffset = routing.offset();
    this.remix = routing.remix();
    this.seed = routing.seed();
    this.sink = sink;
    this.fill = new int[partitions];
    this.flushed = new long[partitions];
    int slots = Math.max(group, ringMask + 1);
    this.partitionOf = new int[slots];
    this.destination = new long[slots];
    this.buffer = memory.allocate((long) partitions * pageBytes);
    this.pages = buffer.segment();
  }

  public PrefetchingHashJoin.Mode mode() {
    return mode;
  }

  public int partitions() {
    return partitions;
  }

  public int recordBytes() {
    return recordBytes;
  }

  /** Records a page holds. */
  public int pageRecords() {
    return pageLimit / recordBytes;
  }

  /**
   * Adds the first {@code n} records of {@code batch} (at offsets 0, recordBytes, ...) to their
   * partitions' pages, handing every page that fills up to the sink.
   *
   * @throws IllegalArgumentException if {@code n} is negative or the batch is shorter than {@code n} records
   * @throws IllegalStateException after {@link #close}
   */
  public void partition(MemorySegment batch, int n) {
    Objects.requireNonNull(batch, "batch");
    ensureOpen();
    if (n < 0) {
      throw new IllegalArgumentException("record count must not be negative, got " + n);
    }
    if (batch.byteSize() < (long) n * recordBytes) {
      throw new IllegalArgumentException("a batch of " + batch.byteSize() + " bytes does not hold " + n
          + " records of " + recordBytes + " bytes");
    }
    switch (mode) {
      case PLAIN -> partitionPlain(batch, n);
      case GROUP -> partitionGroup(batch, n);
      case PIPELINED -> partitionPipelined(batch, n);
    }
  }

  /** Hands every non-empty page to the sink, in partition order; the partitioner can go on afterwards. */
  public void finish() {
    ensureOpen();
    for (int p = 0; p < partitions; p++) {
      if (fill[p] > 0) {
        flush(p, fill[p]);
        fill[p] = 0;
      }
    }
  }

  /** Records added to partition {@code p} so far (flushed or still in its page). */
  public long count(int p) {
    return flushed[p] + fill[p] / recordBytes;
  }

  /** Records added per partition so far. */
  public long[] counts() {
    long[] counts = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      counts[p] = count(p);
    }
    return counts;
  }

  /** A value derived from the loads the stages issued only to bring lines in (keeps them from being optimized away). */
  public long touched() {
    return touched;
  }

  /** Frees the pages (records not yet {@linkplain #finish finished} are dropped); idempotent. */
  @Override
  public void close() {
    closed = true;
    buffer.close();
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the partitioner is closed");
    }
  }

  // ---------------------------------------------------------------------------------------------- stages

  /** Stage 0: the record's partition. */
  private int partitionAt(MemorySegment batch, long record) {
    int code = remix ? (int) (Hashing.mix64(batch.get(LONG, record + routingOffset) ^ seed) >>> 32)
        : batch.get(INT, record + routingOffset);
    return Remainders.remainder(code, partitionsReciprocal, partitions);
  }

  /** Stage 1: loads every line of the {@code recordBytes} at {@code at} in the pages. */
  private long touch(long at) {
    long sum = pages.get(BYTE, at);
    long last = at + recordBytes - 1;
    for (long line = (at | (LINE_BYTES - 1)) + 1; line <= last; line += LINE_BYTES) {
      sum += pages.get(BYTE, line);
    }
    return sum;
  }

  /** Stage 2: copies the record at {@code record} to partition {@code p}'s page at its current fill position. */
  private void copy(MemorySegment batch, long record, int p) {
    int at = fill[p];
    copyRecord(batch, record, pages, (long) p * pageBytes + at, recordBytes);
    at += recordBytes;
    if (at == pageLimit) {
      flush(p, at);
      at = 0;
    }
    fill[p] = at;
  }

  private void flush(int p, int bytes) {
    sink.flush(p, pages.asSlice((long) p * pageBytes, bytes));
    flushed[p] += bytes / recordBytes;
  }

  /** Copies {@code bytes} (8 bytes a step, then the tail). */
  private static void copyRecord(MemorySegment from, long source, MemorySegment to, long target, int bytes) {
    int i = 0;
    for (; i <= bytes - Long.BYTES; i += Long.BYTES) {
      to.set(LONG, target + i, from.get(LONG, source + i));
    }
    if (i <= bytes - Integer.BYTES) {
      to.set(INT, target + i, from.get(INT, source + i));
      i += Integer.BYTES;
    }
    for (; i < bytes; i++) {
      to.set(BYTE, target + i, from.get(BYTE, source + i));
    }
  }

  // ---------------------------------------------------------------------------------------------- forms

  private void partitionPlain(MemorySegment batch, int n) {
    long w = recordBytes;
    for (int i = 0; i < n; i++) {
      long record = i * w;
      copy(batch, record, partitionAt(batch, record));
    }
  }

  private void partitionGroup(MemorySegment batch, int n) {
    long w = recordBytes;
    int[] parts = partitionOf;
    long[] destinations = destination;
    long touch = 0;
    for (int j = 0; j < n; j += group) {
      int g = Math.min(group, n - j);
      long first = j * w;
      // stage 0: partition and fill position of every record of the group
      for (int i = 0; i < g; i++) {
        int p = partitionAt(batch, first + i * w);
        parts[i] = p;
        destinations[i] = (long) p * pageBytes + fill[p];
      }
      // stage 1: load the destination lines (the misses overlap)
      for (int i = 0; i < g; i++) {
        touch += touch(destinations[i]);
      }
      // stage 2: copy, in input order, at the current fill positions
      for (int i = 0; i < g; i++) {
        copy(batch, first + i * w, parts[i]);
      }
    }
    touched += touch;
  }

  private void partitionPipelined(MemorySegment batch, int n) {
    int d = distance;
    int lead = 2 * d;
    long touch = 0;
    int j = 0;
    for (; j < Math.min(n, lead); j++) { // prologue: the pipeline fills
      touch += pipelineStep(batch, n, j);
    }
    long w = recordBytes;
    int mask = ringMask;
    int[] parts = partitionOf;
    long[] destinations = destination;
    for (; j < n; j++) { // kernel (j >= 2D): every stage has a record
      copy(batch, (j - lead) * w, parts[(j - lead) & mask]);
      touch += touch(destinations[(j - d) & mask]);
      int p = partitionAt(batch, j * w);
      int s = j & mask;
      parts[s] = p;
      destinations[s] = (long) p * pageBytes + fill[p];
    }
    for (; j < n + lead; j++) { // epilogue: the pipeline drains
      touch += pipelineStep(batch, n, j);
    }
    touched += touch;
  }

  /** One iteration of the pipeline with every stage guarded: stage 2 for j - 2D, 1 for j - D, 0 for j. */
  private long pipelineStep(MemorySegment batch, int n, int j) {
    long w = recordBytes;
    int d = distance;
    long touch = 0;
    int e2 = j - 2 * d;
    if (e2 >= 0 && e2 < n) {
      copy(batch, e2 * w, partitionOf[e2 & ringMask]);
    }
    int e1 = j - d;
    if (e1 >= 0 && e1 < n) {
      touch += touch(destination[e1 & ringMask]);
    }
    if (j < n) {
      int p = partitionAt(batch, j * w);
      int s = j & ringMask;
      partitionOf[s] = p;
      destination[s] = (long) p * pageBytes + fill[p];
    }
    return touch;
  }

  /** The first level's line from sysfs where it is a sensible power of two, else 64. */
  static int lineBytes(List<CacheLevel> caches) {
    int line = caches.isEmpty() ? 0 : caches.getFirst().lineBytes();
    return line >= 8 && line <= 4096 && Integer.bitCount(line) == 1 ? line : 64;
  }
}
