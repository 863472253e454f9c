package dev.memwall.join.grace;

import dev.memwall.join.prefetch.BucketTable;
import dev.memwall.join.prefetch.SpillRecords;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.core.memory.Placement;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinMethod;
import dev.memwall.join.algorithm.JoinOutput;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import dev.memwall.join.prefetch.PrefetchingPartitioner;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * GRACE and hybrid hash joins that spill to disk (seed 002, section 4.2; seed 004 for the partition
 * count and the split).
 *
 * <p><b>Partition phase.</b> When the build (right) side needs more than the join's memory {@code M}
 * in a {@link BucketTable} ({@link BucketTable#BYTES_PER_TUPLE} per tuple), both sides are
 * hash-partitioned into {@code k = ceil(F |R| / M)} partitions, {@code F} = {@value #FUDGE}, by the
 * tuple's 4-byte hash code modulo {@code k}. A first pass counts the build side's partitions (a cheap
 * scan of the key columns) so that the hybrid variant can choose its resident partitions by their
 * real sizes ({@link HybridSplit}); plain GRACE keeps none resident. Tuples of spilled partitions go
 * through one page per partition into a spill file per partition and side, as 16-byte
 * {@link SpillRecords} that keep the hash code beside the tuple: up to {@value #STAGED_RECORDS} of
 * them at a time are staged as records and partitioned at once by a {@link PrefetchingPartitioner},
 * in the same loop form (plain, group, pipelined) as the join phase. Tuples of resident partitions form
 * one in-memory hash table that probe tuples of those partitions probe, a staged batch at a time,
 * while the probe side is being partitioned.
 *
 * <p><b>Join phase.</b> Each spilled pair is joined by loading the build partition into the table and
 * streaming the probe partition through it, page by page, without rehashing; build and probe run
 * plain, group-prefetched or software-pipelined ({@link PrefetchingHashJoin}). A partition still too
 * big for {@code M} is re-partitioned with a fresh hash of the key (one seed per level) into
 * {@code ceil(F |R_i| / M)} sub-partitions (a read page of records at a time, in the same loop
 * form), recursively up to {@value #MAX_LEVELS} levels; a sub-partition that re-partitioning did
 * not shrink (a single key too frequent for {@code M}, or keys that all collide) is joined by block nested loops over the spill files: the build partition
 * in blocks of {@code M} bytes, each hashed and probed by the whole probe partition, a bit per probe
 * tuple remembering matches for outer, semi and anti joins.
 *
 * <p>Null keys: left rows with a null key are reported at once (outer, anti) and never spilled;
 * right ones are dropped.
 *
 * <p>Resources: in memory, the table for at most {@code M} bytes of build tuples (more only when a
 * resident partition or a block must hold at least one page), plus one output page per partition
 * of the side being partitioned (pages shrink, down to 256 bytes, so that they take about a quarter
 * of {@code M}), and a staging area of {@value #STAGED_RECORDS} records. On disk, up to the size of
 * both inputs' tuples (16 bytes each), in a fresh directory under the spill root that is removed with everything in it on success, failure and
 * interruption ({@link dev.memwall.join.common.JoinSpillException}).
 *
 * <p>Thread safety: one instance per join, one thread.
 */
public final class GraceHashJoin implements AutoCloseable, PrefetchingHashJoin.ProbeSink {
  /** The fudge factor F of {@code k = ceil(F |R| / M)}: hash tables are not filled perfectly evenly. */
  public static final double FUDGE = 1.2;
  /** Partitions per partitioning pass at most; larger inputs are re-partitioned recursively. */
  public static final int MAX_FANOUT = 256;
  /** Re-partitioning levels before block nested loops take over. */
  public static final int MAX_LEVELS = 4;
  /** The largest partition page. */
  public static final int MAX_PAGE_BYTES = 64 << 10;
  /** The smallest partition page (16 tuples). */
  public static final int MIN_PAGE_BYTES = 256;

  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt INT = SpillRecords.INT;
  private static final ValueLayout.OfLong LONG = SpillRecords.LONG;
  private static final int BLOCK_ROWS = 1024;
  /** Spilled tuples staged as records before the partition loop takes them (4 KiB). */
  private static final int STAGED_RECORDS = 256;
  private static final long[] LEVEL_SEEDS = {0, 0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L,
      0x27D4EB2F165667C5L, 0x85EBCA77C2B2AE63L};

  /**
   * How a spilling join runs.
   *
   * @param memoryBytes {@code M}, the memory for hash tables and partition pages
   * @param spillRoot where the spill directory is created
   * @param spillQuotaBytes the most bytes the spill files may hold at once ({@link Long#MAX_VALUE}: the disk decides)
   * @param hybrid keep partitions resident (hybrid hash join) rather than spilling all (GRACE)
   * @param prefetch the form of the partition loops and of the join phase's build and probe loops
   * @param tuning G and D for them (one tuning for all three loops)
   * @param rates where the hybrid split's measured rates come from (say {@link SpillRates#measure}, which
   *     writes and reads a few MiB under the spill root once per process): asked once, when a hybrid join
   *     starts, so that settings can be built (and a join sized) without measuring; may be null for GRACE
   * @param cacheBytes the cache the partition pages compete for
   *     ({@link dev.memwall.core.machine.MachineProfile#fastCacheBytes()}): while all open pages fit it,
   *     their next lines are cache hits and the partition loop runs plain whatever {@code prefetch} says
   *     (its early loads would only cost, see {@link #partitionForm})
   */
  public record Settings(long memoryBytes, Path spillRoot, long spillQuotaBytes, boolean hybrid,
      Supplier<SpillRates> rates, PrefetchingHashJoin.Mode prefetch, PrefetchTuning tuning, long cacheBytes) {
    /** Plain loops (no prefetching), for callers that do not care. */
    public Settings(long memoryBytes, Path spillRoot, long spillQuotaBytes, boolean hybrid,
        Supplier<SpillRates> rates) {
      this(memoryBytes, spillRoot, spillQuotaBytes, hybrid, rates, PrefetchingHashJoin.Mode.PLAIN,
          new PrefetchTuning(1, 1), 0);
    }

    /**
     * The form of a partition loop over {@code partitions} open pages of {@code pageBytes}: the
     * configured one when the pages exceed {@link #cacheBytes}, else plain.
     */
    public PrefetchingHashJoin.Mode partitionForm(int partitions, int pageBytes) {
      return (long) partitions * pageBytes > cacheBytes ? prefetch : PrefetchingHashJoin.Mode.PLAIN;
    }

    public Settings {
      if (prefetch == null || tuning == null) {
        throw new IllegalArgumentException("a spilling join needs a prefetch mode and tuning");
      }
      if (memoryBytes < 1) {
        throw new IllegalArgumentException("a spilling join needs a positive memory limit, got " + memoryBytes);
      }
      if (spillRoot == null) {
        throw new IllegalArgumentException("a spilling join needs a spill directory");
      }
      if (cacheBytes < 0) {
        throw new IllegalArgumentException("cache size must not be negative, got " + cacheBytes);
      }
      if (spillQuotaBytes < 0) {
        throw new IllegalArgumentException("spill quota must not be negative, got " + spillQuotaBytes);
      }
      if (hybrid && rates == null) {
        throw new IllegalArgumentException("a hybrid hash join needs measured rates to split its work");
      }
    }
  }

  /**
   * What one run did.
   *
   * @param partitions the partitions of the first partitioning pass (1: the build side fit its memory)
   * @param residentPartitions non-empty partitions kept in memory (hybrid hash join)
   * @param spilledBytes bytes written to spill files in all
   * @param peakSpillBytes the most bytes the spill files held at once
   * @param repartitionedPartitions partitions re-partitioned because they did not fit the memory
   * @param blockNestedLoopPartitions partitions joined by block nested loops (re-partitioning did not shrink them)
   * @param maxLevel the deepest partitioning level a spilled partition was joined at (0: nothing spilled, 1:
   *     the first pass's partitions, more after re-partitioning)
   */
  public record Report(int partitions, int residentPartitions, long spilledBytes, long peakSpillBytes,
      int repartitionedPartitions, int blockNestedLoopPartitions, int maxLevel) implements JoinMethod.Details {}

  /** The algorithm: GRACE, or hybrid hash join as {@link Settings#hybrid} says. */
  public static final JoinMethod<Settings> METHOD = new JoinMethod<>() {
    @Override
    public long workingBytes(JoinInput sides, Settings settings) {
      return bytesFor(sides.left().rowCount(), sides.right().rowCount(), settings.memoryBytes());
    }

    @Override
    public Report run(JoinInput sides, JoinOutput sink, Settings settings) {
      return GraceHashJoin.run(sides, sink, settings);
    }
  };

  private final JoinInput input;
  private final JoinOutput out;
  private final Settings settings;
  /** The hybrid split's rates; null for GRACE. */
  private final SpillRates rates;
  private final EngineMemory memory;
  private final JoinType type;
  private final boolean exact;
  private final boolean pairs;
  private final boolean firstSuffices;
  private final boolean reportsUnmatched;
  private final long memoryBytes;
  private final BucketTable table;
  private final PrefetchingHashJoin loops;
  private final HashedTuples block;
  private final OffHeapBuffer nullRows;
  /** Spilled tuples of one block as {@link SpillRecords}, for the partition loop. */
  private final OffHeapBuffer staging;
  private OffHeapBuffer readBuffer;
  private SpillDirectory spill;
  private int topPartitions = 1;
  private int residentPartitions;
  private int repartitioned;
  private int blockNestedLoops;
  private int maxLevel;

  private GraceHashJoin(JoinInput input, JoinOutput out, Settings settings, SpillRates rates) {
    this.input = input;
    this.out = out;
    this.settings = settings;
    this.rates = rates;
    this.memory = input.memory();
    this.type = input.type();
    this.exact = input.exact();
    this.pairs = input.emitsPairs();
    this.firstSuffices = input.firstMatchSuffices();
    this.reportsUnmatched = type.reportsUnmatched();
    this.memoryBytes = settings.memoryBytes();
    this.table = new BucketTable(memory);
    this.loops = new PrefetchingHashJoin(settings.prefetch(), settings.tuning());
    HashedTuples tuples = null;
    OffHeapBuffer nulls = null;
    try {
      tuples = HashedTuples.allocate(memory, BLOCK_ROWS, Placement.DEFAULT);
      nulls = memory.allocate((long) BLOCK_ROWS * Integer.BYTES);
      this.staging = memory.allocate((long) STAGED_RECORDS * SpillRecords.BYTES);
    } catch (RuntimeException | Error e) {
      if (tuples != null) {
        tuples.close();
      }
      if (nulls != null) {
        nulls.close();
      }
      throw e;
    }
    this.block = tuples;
    this.nullRows = nulls;
  }

  /** Runs the join; every buffer and spill file is gone when this returns or throws. */
  private static Report run(JoinInput input, JoinOutput out, Settings settings) {
    SpillRates rates = settings.hybrid() ? settings.rates().get() : null;
    try (GraceHashJoin join = new GraceHashJoin(input, out, settings, rates)) {
      join.execute();
      return join.report();
    }
  }

  /** {@code k = ceil(F |R| / M)} for {@code buildTuples} tuples of {@link BucketTable#BYTES_PER_TUPLE} bytes. */
  public static long partitionCount(long buildTuples, long memoryBytes) {
    return Math.max(1, (long) Math.ceil(FUDGE * buildTuples * BucketTable.BYTES_PER_TUPLE / memoryBytes));
  }

  /**
   * The page size for {@code partitions} partitions in {@code memoryBytes}: one side's pages take about
   * a quarter of it (the two sides are partitioned one after the other).
   */
  public static int pageBytes(int partitions, long memoryBytes) {
    long page = memoryBytes / (4L * Math.max(1, partitions));
    page = Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, page));
    return (int) (page / SpillRecords.BYTES * SpillRecords.BYTES);
  }

  /** Working memory a join of these sizes takes at most (besides pathological skew that grows cell arrays). */
  public static long bytesFor(long leftRows, long rightRows, long memoryBytes) {
    long table = Math.min(Math.max(1, rightRows) * BucketTable.BYTES_PER_TUPLE, memoryBytes);
    long pages = rightRows * (long) BucketTable.BYTES_PER_TUPLE <= memoryBytes ? 0
        : (long) MAX_FANOUT * pageBytes(MAX_FANOUT, memoryBytes);
    return table + Math.min(pages, memoryBytes) + HashedTuples.bytesFor(BLOCK_ROWS) + 4L * BLOCK_ROWS
        + (long) SpillRecords.BYTES * STAGED_RECORDS + readBytes(memoryBytes);
  }

  /** The buffer spill files are read through: up to a quarter of M, 256 bytes to 64 KiB. */
  static int readBytes(long memoryBytes) {
    long bytes = Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, memoryBytes / 4));
    return (int) (bytes / SpillRecords.BYTES * SpillRecords.BYTES);
  }

  private Report report() {
    return new Report(topPartitions, residentPartitions, spill == null ? 0 : spill.writtenBytes(),
        spill == null ? 0 : spill.peakBytes(), repartitioned, blockNestedLoops, maxLevel);
  }

  private void execute() {
    KeyColumns right = input.right();
    KeyColumns left = input.left();
    int k = (int) Math.min(MAX_FANOUT, partitionCount(right.rowCount(), memoryBytes));
    topPartitions = k;
    long[] counts = new long[k];
    if (k > 1) {
      countBuild(right, counts);
    } else {
      counts[0] = right.rowCount(); // an upper bound: null keys are dropped later
    }
    int page = pageBytes(k, memoryBytes);
    HybridSplit.Plan plan = k == 1 && counts[0] * (long) BucketTable.BYTES_PER_TUPLE <= memoryBytes
        ? new HybridSplit.Plan(new boolean[] {true}, counts[0], 0)
        : HybridSplit.choose(counts, left.rowCount(), memoryBytes, page, settings.hybrid(),
            rates == null ? new SpillRates(1, 1, 1) : rates);
    boolean[] resident = plan.resident();
    boolean anySpilled = false;
    for (int p = 0; p < k; p++) {
      if (resident[p] && counts[p] > 0) {
        residentPartitions++;
      }
      anySpilled |= !resident[p];
    }
    if (anySpilled) {
      spill = SpillDirectory.create(settings.spillRoot(), settings.spillQuotaBytes());
    }
    long[] buildCounts;
    long[] probeCounts;
    SpillFile[] buildFiles;
    SpillFile[] probeFiles;
    PrefetchingPartitioner.Routing byCode = PrefetchingPartitioner.Routing.code((int) SpillRecords.CODE);
    try (Partitioner builds = anySpilled ? new Partitioner(spill, memory, "build", k, page, byCode) : null) {
      partitionBuild(right, k, resident, (int) plan.residentTuples(), builds);
      buildCounts = builds == null ? null : builds.finish();
      buildFiles = builds == null ? null : builds.files;
    }
    readBuffer = memory.allocate(readBytes(memoryBytes));
    try (Partitioner probes = anySpilled ? new Partitioner(spill, memory, "probe", k, page, byCode) : null) {
      partitionProbe(left, k, resident, probes);
      probeCounts = probes == null ? null : probes.finish();
      probeFiles = probes == null ? null : probes.files;
    }
    if (!anySpilled) {
      return;
    }
    for (int p = 0; p < k; p++) {
      if (!resident[p]) {
        joinSpilled(buildFiles[p], buildCounts[p], probeFiles[p], probeCounts[p], 1, k);
      }
    }
  }

  private int fill(KeyColumns side, int batch, int from, boolean keepNulls) {
    int to = Math.min(from + BLOCK_ROWS, side.batchRows(batch));
    long packed = side.extract(batch, from, to, block.hashes(), block.rows(), 0,
        keepNulls ? nullRows.segment() : null, 0);
    if (keepNulls && reportsUnmatched) {
      int nulls = (int) (packed >>> 32);
      for (int i = 0; i < nulls; i++) {
        out.emit(nullRows.segment().getAtIndex(INT, i), JoinIndex.NO_ROW);
      }
    }
    return (int) packed;
  }

  private void countBuild(KeyColumns right, long[] counts) {
    int k = counts.length;
    MemorySegment hashes = block.hashes();
    for (int b = 0; b < right.batches(); b++) {
      for (int from = 0; from < right.batchRows(b); from += BLOCK_ROWS) {
        int n = fill(right, b, from, false);
        for (int i = 0; i < n; i++) {
          counts[Integer.remainderUnsigned(SpillRecords.code(hashes.getAtIndex(HASH, i)), k)]++;
        }
      }
    }
  }

  private void partitionBuild(KeyColumns right, int k, boolean[] resident, int residentTuples, Partitioner builds) {
    MemorySegment space = table.tupleSpace(residentTuples);
    boolean allSpilled = noneTrue(resident);
    int at = 0;
    MemorySegment hashes = block.hashes();
    MemorySegment rows = block.rows();
    for (int b = 0; b < right.batches(); b++) {
      for (int from = 0; from < right.batchRows(b); from += BLOCK_ROWS) {
        int n = fill(right, b, from, false);
        for (int i = 0; i < n; i++) {
          long key = hashes.getAtIndex(HASH, i);
          int code = SpillRecords.code(key);
          int row = rows.getAtIndex(INT, i);
          if (!allSpilled && resident[Integer.remainderUnsigned(code, k)]) {
            writeRecord(space, at++, code, row, key);
          } else {
            builds.stage(code, row, key);
          }
        }
      }
    }
    table.build(at, k);
  }

  private static boolean noneTrue(boolean[] flags) {
    for (boolean flag : flags) {
      if (flag) {
        return false;
      }
    }
    return true;
  }

  private static void writeRecord(MemorySegment records, int index, int code, int row, long key) {
    long o = (long) index * SpillRecords.BYTES;
    records.set(INT, o + SpillRecords.CODE, code);
    records.set(INT, o + SpillRecords.ROW, row);
    records.set(LONG, o + SpillRecords.KEY, key);
  }

  /**
   * Partitions the probe side: tuples of spilled partitions to their pages, tuples of resident ones
   * staged (in the read buffer) and probed a batch at a time with the configured loops.
   *
   * <p>The per-tuple loop is {@link #partitionBuild}'s twin, which writes resident tuples into the
   * table's space instead: kept apart so each stays a straight loop with no call-back per tuple.
   */
  private void partitionProbe(KeyColumns left, int k, boolean[] resident, Partitioner probes) {
    MemorySegment hashes = block.hashes();
    MemorySegment rows = block.rows();
    MemorySegment staged = readBuffer.segment();
    boolean allSpilled = noneTrue(resident);
    int capacity = (int) (staged.byteSize() / SpillRecords.BYTES);
    int count = 0;
    for (int b = 0; b < left.batches(); b++) {
      for (int from = 0; from < left.batchRows(b); from += BLOCK_ROWS) {
        int n = fill(left, b, from, true);
        for (int i = 0; i < n; i++) {
          long key = hashes.getAtIndex(HASH, i);
          int code = SpillRecords.code(key);
          int row = rows.getAtIndex(INT, i);
          if (!allSpilled && resident[Integer.remainderUnsigned(code, k)]) {
            writeRecord(staged, count, code, row, key);
            if (++count == capacity) {
              loops.probe(table, staged, count, firstSuffices, this);
              count = 0;
            }
          } else {
            probes.stage(code, row, key);
          }
        }
      }
    }
    if (count > 0) {
      loops.probe(table, staged, count, firstSuffices, this);
    }
  }

  /** Probes the table with one tuple, emitting its pairs; whether it matched. */
  private boolean probe(int code, int row, long key) {
    BucketTable t = table;
    long header = t.header(code);
    MemorySegment headers = t.headers();
    int count = headers.get(INT, header);
    if (count == 0) {
      return false;
    }
    boolean matched = false;
    if (headers.get(INT, header + 4) == code) {
      matched = tryMatch(headers.get(INT, header + 8), row, key);
      if (matched && firstSuffices) {
        return true;
      }
    }
    if (count > 1) {
      MemorySegment cells = t.cells();
      long cell = (long) headers.get(INT, header + 12) * BucketTable.CELL_BYTES;
      long end = cell + (long) (count - 1) * BucketTable.CELL_BYTES;
      for (; cell < end; cell += BucketTable.CELL_BYTES) {
        if (cells.get(INT, cell) == code && tryMatch(cells.get(INT, cell + 4), row, key)) {
          matched = true;
          if (firstSuffices) {
            return true;
          }
        }
      }
    }
    return matched;
  }

  private boolean tryMatch(int tuple, int leftRow, long key) {
    long o = (long) tuple * SpillRecords.BYTES;
    MemorySegment tuples = table.tuples();
    if (tuples.get(LONG, o + SpillRecords.KEY) != key) {
      return false;
    }
    int rightRow = tuples.get(INT, o + SpillRecords.ROW);
    if (!exact && !input.confirm(leftRow, rightRow)) {
      return false;
    }
    if (pairs) {
      out.emit(leftRow, rightRow);
    }
    return true;
  }

  private void joinSpilled(SpillFile build, long buildCount, SpillFile probe, long probeCount, int level,
      int topPartitionCount) {
    maxLevel = Math.max(maxLevel, level);
    try {
      if (probeCount == 0) {
        return;
      }
      if (buildCount == 0) {
        if (reportsUnmatched) {
          forEachRecord(probe, (code, row, key) -> out.emit(row, JoinIndex.NO_ROW));
        }
        return;
      }
      if (buildCount * BucketTable.BYTES_PER_TUPLE <= memoryBytes) {
        loadAndBuild(build, 0, (int) buildCount, topPartitionCount);
        forEachPage(probe, (page, n) -> loops.probe(table, page, n, firstSuffices, this));
        return;
      }
      if (level > MAX_LEVELS) {
        blockNestedLoops(build, buildCount, probe, probeCount, topPartitionCount);
        return;
      }
      repartitioned++;
      int k = (int) Math.max(2, Math.min(MAX_FANOUT, partitionCount(buildCount, memoryBytes)));
      int page = pageBytes(k, memoryBytes);
      long seed = LEVEL_SEEDS[level];
      long[] buildCounts;
      long[] probeCounts;
      SpillFile[] buildFiles;
      SpillFile[] probeFiles;
      PrefetchingPartitioner.Routing fresh = PrefetchingPartitioner.Routing.remixedKey((int) SpillRecords.KEY, seed);
      try (Partitioner builds = new Partitioner(spill, memory, "build-l" + level, k, page, fresh)) {
        forEachPage(build, builds::add);
        buildCounts = builds.finish();
        buildFiles = builds.files;
      }
      build.delete();
      try (Partitioner probes = new Partitioner(spill, memory, "probe-l" + level, k, page, fresh)) {
        forEachPage(probe, probes::add);
        probeCounts = probes.finish();
        probeFiles = probes.files;
      }
      probe.delete();
      for (int p = 0; p < k; p++) {
        if (buildCounts[p] == buildCount && buildCount * BucketTable.BYTES_PER_TUPLE > memoryBytes) {
          // the fresh hash put everything in one place: one key too frequent for M
          maxLevel = Math.max(maxLevel, level + 1);
          blockNestedLoops(buildFiles[p], buildCounts[p], probeFiles[p], probeCounts[p], topPartitionCount);
        } else {
          joinSpilled(buildFiles[p], buildCounts[p], probeFiles[p], probeCounts[p], level + 1, topPartitionCount);
        }
      }
    } finally {
      if (build != null) {
        build.delete();
      }
      if (probe != null) {
        probe.delete();
      }
    }
  }

  /** Block nested loops over the spill files: blocks of M bytes of build tuples, each probed by every probe tuple. */
  private void blockNestedLoops(SpillFile build, long buildCount, SpillFile probe, long probeCount,
      int topPartitionCount) {
    blockNestedLoops++;
    if (build == null || probe == null) {
      return;
    }
    int blockTuples = (int) Math.max(1, Math.min(Integer.MAX_VALUE / SpillRecords.BYTES,
        memoryBytes / BucketTable.BYTES_PER_TUPLE));
    boolean trackMatches = firstSuffices || reportsUnmatched;
    try (OffHeapBuffer matchedBits = trackMatches ? memory.allocate(Math.max(8, (probeCount + 63) / 64 * 8)) : null) {
      MemorySegment bits = matchedBits == null ? null : matchedBits.segment();
      if (bits != null) {
        bits.fill((byte) 0);
      }
      for (long first = 0; first < buildCount; first += blockTuples) {
        int n = (int) Math.min(blockTuples, buildCount - first);
        loadAndBuild(build, first, n, topPartitionCount);
        long[] index = {0};
        forEachRecord(probe, (code, row, key) -> {
          long i = index[0]++;
          if (bits == null) {
            probe(code, row, key);
            return;
          }
          long word = (i >>> 6) * Long.BYTES;
          long mask = 1L << (i & 63);
          long current = bits.get(ValueLayout.JAVA_LONG, word);
          if (firstSuffices && (current & mask) != 0) {
            return;
          }
          if (probe(code, row, key)) {
            bits.set(ValueLayout.JAVA_LONG, word, current | mask);
          }
        });
      }
      if (bits != null) {
        long[] index = {0};
        forEachRecord(probe, (code, row, key) -> {
          long i = index[0]++;
          boolean matched = (bits.get(ValueLayout.JAVA_LONG, (i >>> 6) * Long.BYTES) & (1L << (i & 63))) != 0;
          JoinInput.finishRow(type, out, row, matched);
        });
      }
    }
  }

  private void loadAndBuild(SpillFile build, long firstTuple, int n, int topPartitionCount) {
    MemorySegment space = table.tupleSpace(n);
    build.read(firstTuple * SpillRecords.BYTES, space);
    loops.build(table, n, topPartitionCount);
  }

  /** Hands {@code file}'s tuples to {@code visitor} a read buffer's worth at a time. */
  private void forEachPage(SpillFile file, PageVisitor visitor) {
    MemorySegment buffer = readBuffer.segment();
    long size = file.size();
    for (long position = 0; position < size; position += buffer.byteSize()) {
      long bytes = Math.min(buffer.byteSize(), size - position);
      MemorySegment page = buffer.asSlice(0, bytes);
      file.read(position, page);
      visitor.visit(page, (int) (bytes / SpillRecords.BYTES));
    }
  }

  @Override
  public boolean match(int probeRow, int buildRow) {
    if (!exact && !input.confirm(probeRow, buildRow)) {
      return false;
    }
    if (pairs) {
      out.emit(probeRow, buildRow);
    }
    return true;
  }

  @Override
  public void finish(int probeRow, boolean matched) {
    JoinInput.finishRow(type, out, probeRow, matched);
  }

  /** What a pass over a spill file does with each page of tuples. */
  @FunctionalInterface
  private interface PageVisitor {
    void visit(MemorySegment page, int tuples);
  }

  /** What a pass over a spill file does with each tuple. */
  @FunctionalInterface
  private interface RecordVisitor {
    void visit(int code, int row, long key);
  }

  private void forEachRecord(SpillFile file, RecordVisitor visitor) {
    MemorySegment buffer = readBuffer.segment();
    long size = file.size();
    for (long position = 0; position < size; position += buffer.byteSize()) {
      long bytes = Math.min(buffer.byteSize(), size - position);
      MemorySegment page = buffer.asSlice(0, bytes);
      file.read(position, page);
      for (long o = 0; o < bytes; o += SpillRecords.BYTES) {
        visitor.visit(page.get(INT, o + SpillRecords.CODE), page.get(INT, o + SpillRecords.ROW),
            page.get(LONG, o + SpillRecords.KEY));
      }
    }
  }

  @Override
  public void close() {
    try {
      if (spill != null) {
        spill.close();
      }
    } finally {
      table.close();
      block.close();
      nullRows.close();
      staging.close();
      if (readBuffer != null) {
        readBuffer.close();
      }
    }
  }

  /**
   * Writes tuples into one page per partition and each full page to the partition's spill file
   * (created on its first page), with the join's loop form ({@link PrefetchingPartitioner}).
   * Ownership: closes its pages; the files belong to the directory.
   */
  final class Partitioner implements AutoCloseable, PrefetchingPartitioner.PageSink {
    private final SpillDirectory directory;
    private final String prefix;
    private final PrefetchingPartitioner loop;
    private int staged;
    final SpillFile[] files;

    Partitioner(SpillDirectory directory, EngineMemory memory, String prefix, int partitions, int pageBytes,
        PrefetchingPartitioner.Routing routing) {
      this.directory = directory;
      this.prefix = prefix;
      this.files = new SpillFile[partitions];
      this.loop = new PrefetchingPartitioner(memory, partitions, pageBytes, SpillRecords.BYTES, routing,
          settings.partitionForm(partitions, pageBytes), settings.tuning(), this);
    }

    /** Adds the first {@code n} {@link SpillRecords} of {@code records}. */
    void add(MemorySegment records, int n) {
      loop.partition(records, n);
    }

    /**
     * Adds one tuple through the join's staging area: every {@value #STAGED_RECORDS} staged tuples go
     * through the partition loop at once. The area is shared by the join's partitioners, which run
     * one after the other; {@link #finish} partitions what is left in it.
     */
    void stage(int code, int row, long key) {
      writeRecord(staging.segment(), staged, code, row, key);
      if (++staged == STAGED_RECORDS) {
        partitionStaged();
      }
    }

    private void partitionStaged() {
      if (staged > 0) {
        loop.partition(staging.segment(), staged);
        staged = 0;
      }
    }

    @Override
    public void flush(int p, MemorySegment page) {
      if (files[p] == null) {
        files[p] = directory.newFile(prefix + "-" + p);
      }
      files[p].append(page);
    }

    /** Flushes every page; the tuples per partition. */
    long[] finish() {
      partitionStaged();
      loop.finish();
      return loop.counts();
    }

    @Override
    public void close() {
      loop.close();
    }
  }
}
